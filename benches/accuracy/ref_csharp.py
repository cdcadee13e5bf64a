#!/usr/bin/env python3
"""Reference call graph of a C# code base, by Mono's C# compiler: the IL that `mcs` writes,
read back with Mono.Cecil.

    ref_csharp.py FOLDER [-define:A;B] [-exclude:PATH...] > ref.json

Every `.cs` file of FOLDER but the excluded ones is compiled in one go into a library
(`mcs -target:library -debug -r:System.Core.dll -r:Microsoft.CSharp.dll`, Debian's mono-mcs
6.8: C# 7.0, so a repository pinned at a commit that builds with it and the framework
alone; `-define` gives the symbols its project file defines). `RefCSharp.cs`, compiled and
run with Debian's Mono.Cecil 0.9.5, prints each method of the assembly with its source lines
(the .mdb symbols) and each `call`, `callvirt`, `newobj` and `ldftn` instruction with its
site (the sequence point in force: a line; mcs gives no columns) and the method the compiler
chose.

Defs come from the source (tree-sitter's C# grammar; the line of the declared name): types
(class, struct, interface, enum, record: kind `class`), methods, constructors (one node with
their class), destructors, operators, local functions, and properties, indexers and events
whose accessors have bodies (`function`, or `abstract` without a body). A def in a
preprocessor branch the build leaves out is none.

Callers: the innermost def whose span holds the call's site (a lambda's, an iterator's or an
async method's calls are the method around them; a field initialiser's, which the compiler
copies into every constructor, the class's).

Callees, as the compiler resolved them: the method of the assembly the instruction names,
mapped to its def (the def of that name whose span holds the method's first line; an
accessor `get_X` is the property `X`). `newobj` is its class (`construct`), and so is a
`call` of a struct's constructor (`new S(…)` into a variable) and a constructor's explicit
`: base(…)`/`: this(…)`. A callee outside the assembly is external (counted).

Left unresolved, with a reason: a call whose target is abstract or an interface's method;
a `callvirt` of a virtual method some class of the assembly overrides (the compiler names
the original declaration, whatever the receiver's class: which override runs is the run
time's choice), and of a framework's virtual method (`Equals`, `ToString`) that a class of
the assembly overrides; the lines of a preprocessor branch the build leaves out, and every
line of an excluded file ("not compiled"), and the calls of a [Conditional] method, which
the compiler drops without its symbol, each line with such a call on it. Left out,
counted: a method group taken as a value (`ldftn`: a reference, not a call), a delegate
made (`new D(f)`, a lambda converted), calls of property and event accessors (a property
read, which no reference models) and of operators (`a + b`, conversions), of what the
compiler makes (a lambda's method, an iterator's class), and a constructor's implicit call
of its base's. A file's byte-order mark is no text. Output: the same JSON as
ref_python.py.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

import tree_sitter_c_sharp
from tree_sitter import Language, Parser

from ref_c import code_lines, walk

HERE = os.path.dirname(os.path.abspath(__file__))
CECIL = "/usr/lib/mono-cecil"
PARSER = Parser(Language(tree_sitter_c_sharp.language()))

# --- the preprocessor: which lines the build compiles -----------------------------------------


def pp_eval(expr, defined):
    """A `#if` condition: symbols, true/false, !, ==, !=, &&, || and parentheses."""
    toks = re.findall(r"\|\||&&|==|!=|!|\(|\)|\w+", expr.split("//")[0])
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def primary():
        t = take()
        if t == "!":
            return not primary()
        if t == "(":
            v = disj()
            take()
            return v
        return t == "true" or (t != "false" and t in defined)

    def eq():
        v = primary()
        while peek() in ("==", "!="):
            op, w = take(), primary()
            v = (v == w) if op == "==" else (v != w)
        return v

    def conj():
        v = eq()
        while peek() == "&&":
            take()
            v = eq() & v
        return v

    def disj():
        v = conj()
        while peek() == "||":
            take()
            v = conj() | v
        return v

    return disj()


def active_lines(text, defines):
    """Per line (1-based index), whether the build compiles it."""
    defined = set(defines)
    out = [True]
    stack = []  # (branch active, some branch taken, enclosing active)
    live = True
    for line in text.split("\n"):
        s = line.strip()
        m = re.match(r"#\s*(if|elif|else|endif|define|undef)\b(.*)", s)
        if m:
            d, rest = m.group(1), m.group(2)
            if d == "if":
                v = live and pp_eval(rest, defined)
                stack.append((v, v, live))
                live = v
            elif d == "elif" and stack:
                _, taken, outer = stack[-1]
                v = outer and not taken and pp_eval(rest, defined)
                stack[-1] = (v, taken or v, outer)
                live = v
            elif d == "else" and stack:
                _, taken, outer = stack[-1]
                v = outer and not taken
                stack[-1] = (v, True, outer)
                live = v
            elif d == "endif" and stack:
                live = stack.pop()[2]
            elif d == "define" and live:
                defined.add(rest.strip())
            elif d == "undef" and live:
                defined.discard(rest.strip())
            out.append(False)
            continue
        out.append(live)
    return out


# --- the source: declarations and their spans --------------------------------------------------

TYPES = {"class_declaration", "struct_declaration", "interface_declaration", "enum_declaration",
         "record_declaration", "record_struct_declaration"}
CALLABLES = {"method_declaration", "constructor_declaration", "destructor_declaration",
             "operator_declaration", "conversion_operator_declaration", "local_function_statement"}
MEMBERS = {"property_declaration", "indexer_declaration", "event_declaration"}


class Decl:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def has_body(node):
    return any(c.type in ("block", "arrow_expression_clause") for c in node.children)


def accessors_with_bodies(node):
    for c in node.children:
        if c.type == "arrow_expression_clause":
            return True
        if c.type == "accessor_list":
            return any(has_body(a) for a in c.children if a.type == "accessor_declaration")
    return False


def declarations(path, src):
    """Every declaration of a file: Decl(name, line, end, kind, qname for types, parent,
    ctor_init lines)."""
    tree = PARSER.parse(src)
    out, inits = [], set()

    def name_of(node):
        n = node.child_by_field_name("name")
        return (n.text.decode(), n.start_point[0] + 1) if n is not None else (None, None)

    def visit(node, ns, parent):
        for c in node.children:
            t = c.type
            if t in ("namespace_declaration", "file_scoped_namespace_declaration"):
                n = c.child_by_field_name("name")
                inner = (ns + "." if ns else "") + n.text.decode() if n is not None else ns
                if t == "namespace_declaration":
                    visit(c, inner, parent)
                else:
                    ns = inner  # the rest of the file is in it
                continue
            if t in TYPES:
                name, line = name_of(c)
                arity = sum(1 for x in c.children if x.type == "type_parameter_list"
                            for y in x.children if y.type == "type_parameter")
                simple = name + (f"`{arity}" if arity else "")
                qname = (parent.qname + "/" + simple) if parent and parent.kind == "class" else \
                    ((ns + "." if ns else "") + simple)
                d = Decl(name=name, line=line, end=c.end_point[0] + 1, kind="class", qname=qname,
                         parent=parent, ctor=False)
                out.append(d)
                visit(c, ns, d)
                continue
            if t in CALLABLES:
                if t == "operator_declaration":
                    op = c.child_by_field_name("operator")
                    name, line = (op.text.decode(), op.start_point[0] + 1) if op is not None else (None, None)
                elif t == "conversion_operator_declaration":
                    kind = "op_Implicit" if any(x.type == "implicit" for x in c.children) else "op_Explicit"
                    name, line = kind, c.start_point[0] + 1
                else:
                    name, line = name_of(c)
                if name is None:
                    visit(c, ns, parent)
                    continue
                d = Decl(name=name, line=line, end=c.end_point[0] + 1,
                         kind="function" if has_body(c) else "abstract", qname=None, parent=parent,
                         ctor=t == "constructor_declaration")
                out.append(d)
                for x in c.children:
                    if x.type == "constructor_initializer":
                        inits.add(x.start_point[0] + 1)
                        inits.add(x.end_point[0] + 1)
                visit(c, ns, d)
                continue
            if t in MEMBERS:
                if t == "indexer_declaration":
                    name, line = "this", c.start_point[0] + 1
                    for x in c.children:
                        if x.type == "this":
                            line = x.start_point[0] + 1
                elif t == "event_declaration":
                    name, line = name_of(c)
                else:
                    name, line = name_of(c)
                if name is not None and accessors_with_bodies(c):
                    d = Decl(name=name, line=line, end=c.end_point[0] + 1, kind="function", qname=None,
                             parent=parent, ctor=False)
                    out.append(d)
                    visit(c, ns, d)
                    continue
            visit(c, ns, parent)

    visit(tree.root_node, "", None)
    return out, inits


def main():
    args = sys.argv[1:]
    root = os.path.abspath(args[0])
    defines, excluded = [], set()
    for a in args[1:]:
        if a.startswith("-define:"):
            defines += [x for x in re.split(r"[;,]", a[len("-define:"):]) if x]
        elif a.startswith("-exclude:"):
            excluded.add(a[len("-exclude:"):])
    files = [f for f in walk(root) if f.endswith(".cs")]
    compiled = [f for f in files if f not in excluded]

    work = tempfile.mkdtemp(prefix="ref_csharp.")
    try:
        dll = os.path.join(work, "code.dll")
        p = subprocess.run(["mcs", "-target:library", "-debug", "-nowarn:1591,0618,0612,0414,0169,0649",
                            "-r:System.Core.dll", "-r:Microsoft.CSharp.dll", "-r:System.Data.dll",
                            "-r:System.Xml.dll", "-r:System.Xml.Linq.dll", f"-out:{dll}"]
                           + ([f"-define:{';'.join(defines)}"] if defines else []) + compiled,
                           cwd=root, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("mcs failed:\n" + "\n".join(l for l in p.stdout.splitlines() if "error" in l)[:4000])
        exe = os.path.join(work, "RefCSharp.exe")
        subprocess.run(["mcs", f"-out:{exe}", f"-r:{CECIL}/Mono.Cecil.dll", f"-r:{CECIL}/Mono.Cecil.Mdb.dll",
                        "-r:System.Core.dll", os.path.join(HERE, "RefCSharp.cs")],
                       check=True, capture_output=True)
        facts = subprocess.run(["mono", exe, dll], env={**os.environ, "MONO_PATH": CECIL},
                               check=True, capture_output=True, text=True).stdout
        version = subprocess.run(["mcs", "--version"], capture_output=True, text=True).stdout.strip()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    # source declarations
    decls, ctor_inits, active, lines_of = {}, set(), {}, {}
    unresolved = []
    for f in files:
        raw = open(os.path.join(root, f), "rb").read()
        text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
        lines_of[f] = code_lines(text)
        live = active_lines(text, defines) if f in compiled else [False] * (text.count("\n") + 2)
        active[f] = live
        ds, inits = declarations(f, raw)
        decls[f] = [d for d in ds if live[d.line] if d.line < len(live)]
        ctor_inits |= {(f, l) for l in inits}
        why = "in a preprocessor branch the build leaves out" if f in compiled else "in a file the build does not compile"
        for i, l in enumerate(lines_of[f], 1):
            if i < len(live) and not live[i] and re.search(r"\w\s*\(", l) and not l.lstrip().startswith("#"):
                unresolved.append({"caller": None, "site": f"{f}:{i}:0", "why": why})

    defs = {}
    for f in files:
        for d in decls[f]:
            d.key = f"{f}:{d.line}"
            if d.key in defs:
                continue  # (two on one line: the first)
            entry = {"path": f, "name": d.name, "line": d.line, "end": d.end, "kind": d.kind}
            if d.ctor:
                cls = d.parent
                while cls is not None and cls.kind != "class":
                    cls = cls.parent
                entry.update(ctor=True, **{"class": cls.key if cls else None})
            defs[d.key] = entry
    class_of_qname = {}
    for f in files:
        for d in decls[f]:
            if d.kind == "class":
                class_of_qname.setdefault(d.qname, d)

    def innermost(f, line, name=None):
        best = None
        for d in decls.get(f, []):
            if d.line <= line <= d.end and (name is None or d.name == name):
                if best is None or d.line >= best.line:
                    best = d
        return best

    # the assembly
    types, methods, calls = {}, {}, []
    for row in facts.splitlines():
        c = row.split("\t")
        if c[0] == "T":
            types[c[1]] = {"name": c[2], "kind": c[3], "base": None if c[4] == "-" else c[4],
                           "interfaces": c[5:]}
        elif c[0] == "M":
            methods[c[1]] = {"type": c[2], "name": c[3], "params": int(c[4]),
                             "flags": set() if c[5] == "-" else set(c[5].split(",")),
                             "file": None if c[6] == "-" else os.path.relpath(c[6], root),
                             "first": int(c[7])}
        elif c[0] == "C":
            calls.append((c[1], c[2], c[3], os.path.relpath(c[4], root), int(c[5])))

    derived = defaultdict(set)
    for tid, t in types.items():
        for b in ([t["base"]] if t["base"] else []) + t["interfaces"]:
            derived[b].add(tid)
    overrides = defaultdict(set)  # type -> (name, params) of its overrides
    for m in methods.values():
        if "virtual" in m["flags"] and "newslot" not in m["flags"]:
            overrides[m["type"]].add((m["name"], m["params"]))

    all_overrides = {o for v in overrides.values() for o in v}
    # [Conditional] methods: the compiler drops their calls (no instruction) where the symbol
    # is not defined, and they run nowhere: their call sites are no calls of this build.
    dropped = {m["name"] for m in methods.values() if "conditional" in m["flags"]}
    for f in files:
        for i, l in enumerate(lines_of[f], 1):
            if any(re.search(rf"\b{re.escape(n)}\s*\(", l) for n in dropped):
                unresolved.append({"caller": None, "site": f"{f}:{i}:0", "why": "a call of a [Conditional] method the build drops"})

    def overridden(m):
        seen, todo = set(), list(derived[m["type"]])
        while todo:
            t = todo.pop()
            if t in seen:
                continue
            seen.add(t)
            if (m["name"], m["params"]) in overrides[t]:
                return True
            todo += derived[t]
        return False

    def class_def(tid):
        t = types.get(tid)
        d = class_of_qname.get(t["name"]) if t else None
        return d.key if d is not None and d.key in defs else None

    def callee_def(m):
        name = m["name"].rsplit(".", 1)[-1]  # an explicit interface implementation: I.M
        if "accessor" in m["flags"]:
            name = name.split("_", 1)[1]
            if name == "Item":
                name = "this"
        if m["file"] and m["first"]:
            d = innermost(m["file"], m["first"], name)
            if d is not None:
                return d.key
        # no lines (no body) or none found: the type's member of that name
        cls = class_def(m["type"])
        if cls:
            cd = defs[cls]
            for d in decls[cd["path"]]:
                if d.name == name and d.kind != "class" and cd["line"] <= d.line <= cd["end"]:
                    return d.key
        return None

    edges, seen, skipped, external = [], set(), Counter(), 0

    def add_edge(caller, callee, site, how):
        if (caller, callee, site) not in seen:
            seen.add((caller, callee, site))
            edges.append({"caller": caller, "callee": callee, "site": site, "how": how})

    for mid, op, callee, f, line in calls:
        if f not in decls:
            continue  # a file outside FOLDER (none: sources are FOLDER's)
        site = f"{f}:{line}:0"
        d = innermost(f, line)
        caller = d.key if d is not None else f"<{f}>"
        if op in ("ldftn", "ldvirtftn"):
            skipped["a method group as a value (a reference)"] += 1
            continue
        if callee.startswith("ext:"):
            # `o.Equals(x)`, `ToString()`: the compiler names the framework's declaration (a
            # virtual of `System.Object`); a class of the assembly that overrides it may run.
            ext = re.match(r"\S+ [^:]+::([^(]+)\((.*)\)$", callee[4:])
            if op == "callvirt" and ext and (ext.group(1), len(ext.group(2).split(",")) if ext.group(2) else 0) in all_overrides:
                unresolved.append({"caller": caller, "site": site, "why": "a framework virtual method the code base overrides (the run time's choice)"})
                continue
            external += 1
            continue
        m = methods[callee]
        t = types[m["type"]]
        if "accessor" in m["flags"]:
            skipped["a property or event accessor (a property read)"] += 1
            continue
        if "operator" in m["flags"]:
            skipped["an operator"] += 1
            continue
        if "generated" in m["flags"] and "ctor" not in m["flags"] or \
                t["name"].rsplit("/", 1)[-1].startswith("<"):
            skipped["a method the compiler makes (a lambda's, an iterator's)"] += 1
            continue
        if "ctor" in m["flags"]:
            if m["name"] == ".cctor":
                continue
            if t["kind"] == "delegate":
                skipped["a delegate made of a method or lambda (a reference)"] += 1
                continue
            if op == "call" and t["kind"] != "struct" and (f, line) not in ctor_inits:
                skipped["a constructor's implicit call of its base's"] += 1
                continue
            cls = class_def(m["type"])
            if cls is None:
                skipped["a constructor of a type without a source def"] += 1
                continue
            add_edge(caller, cls, site, "construct")
            continue
        if "abstract" in m["flags"] or t["kind"] == "interface":
            unresolved.append({"caller": caller, "site": site, "why": "an abstract or interface method (dynamic dispatch)"})
            continue
        if op == "callvirt" and "virtual" in m["flags"] and "final" not in m["flags"] and overridden(m):
            unresolved.append({"caller": caller, "site": site, "why": "a virtual method the code base overrides (the run time's choice)"})
            continue
        target = callee_def(m)
        if target is None:
            skipped["a callee without a source def"] += 1
            continue
        add_edge(caller, target, site, "call")

    # bases of classes: the base class and interfaces of the assembly
    for tid, t in types.items():
        k = class_def(tid)
        if k is None:
            continue
        bases = [b for b in (class_def(x) for x in ([t["base"]] if t["base"] else []) + t["interfaces"]) if b and b != k]
        if bases:
            defs[k]["bases"] = bases

    print(f"ref_csharp: {len(files)} files ({len(files) - len(compiled)} excluded), {len(types)} types, "
          f"{len(methods)} methods, {len(defs)} defs, {len(edges)} edges, {len(unresolved)} unresolved, "
          f"{external} external; skipped {dict(skipped)}", file=sys.stderr)
    json.dump({"tool": f"{version} IL (Mono.Cecil)", "defs": defs, "edges": edges, "unresolved": unresolved,
               "skipped": dict(skipped), "external_sites": external}, sys.stdout)


if __name__ == "__main__":
    main()
