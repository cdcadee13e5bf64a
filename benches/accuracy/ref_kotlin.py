#!/usr/bin/env python3
"""Reference call graph of a Kotlin code base, by kotlinc: the JVM bytecode the compiler
writes, read back with javap.

    ref_kotlin.py FOLDER > ref.json

Every `.kt` file of FOLDER is compiled in one go (`kotlinc -jvm-target 1.8 -cp
kotlin-reflect.jar -d CLASSES FOLDER`, Debian's kotlinc 1.3.31: a repository pinned at a
commit that builds with Kotlin 1.3, with no dependency beyond the standard library and
kotlin-reflect). `javap -v -p` prints each class: its methods' flags, their `invoke*`
instructions (the callee the compiler chose: owner class, name and descriptor) and line
tables, each class's `SourceFile`, `EnclosingMethod`, Kotlin metadata (`d2`) and the SMAP
of inlined code (`SourceDebugExtension`).

Defs come from the source (the line of the declared name): functions (`fun`; kind
`abstract` without a body), classes, interfaces and objects (a companion object without a
name is `Companion`), `init` blocks and secondary constructors (`init`, `constructor`: the
class's constructor, one node with it). A bytecode method is the `fun` of its name whose
span holds its first line; a class is the source class of its simple name in its file.

Callers: a method's calls belong to its `fun`; a lambda's (a `kotlin.jvm.internal.Lambda`
class) to the function around it (`EnclosingMethod`), a local function's to itself; code
that is not a `fun` (a constructor, a property's initialiser or accessor, `<clinit>`) to
the innermost `init` block, secondary constructor or class around the line, else the file's
top level (`<path>`).

Callees, as the JVM resolves the instruction: the method the owner class declares or
inherits from a class of FOLDER. A constructor is its class (`construct`); a default-argument
stub (`f$default`) and a synthetic accessor (`access$f`) are the function they stand for; an
inline function of FOLDER, whose body the compiler copies into the caller (no instruction
calls it), is found from the SMAP (the copied lines' origin, and `KotlinDebug`'s call-site
line). A callee in no class of FOLDER is external (counted).

Left unresolved, with a reason: a call whose target is abstract or an interface's method
(which implementation runs is the runtime's choice), a call of a function value
(`kotlin.jvm.functions.FunctionN.invoke`), and a callable reference (`::f`, a
`FunctionReference` class: a reference, not a call by the function around it). Left out,
counted: calls of property accessors (a property read, which no reference models), calls of
members the compiler makes (a data class's `copy`/`componentN`, an enum's `values`), code the
compiler makes (a bridge, a class's delegate to an interface's default method, an object's
or a companion's or an enum entry's creation in `<clinit>`), and calls in inlined library
code. Output: the same JSON as ref_python.py.
"""
import bisect
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from ref_c import walk

KOTLIN_JARS = "/usr/share/java"

# --- the source: declarations and their spans ------------------------------------------------


def code_text(text):
    """The text with comments and the insides of string and char literals blanked (newlines
    and every other character kept where they were; `/* */` nests, raw strings `\"\"\"`
    span lines)."""
    out, i, n = list(text), 0, len(text)

    def blank(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j
            while j + 3 < n and text[j + 3] == '"':
                j += 1  # `""""` ends with the last three quotes
            blank(i + 3, j)
            i = j + 3
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


DECL = re.compile(
    r"\b(?:(fun)\s*(?:<[^()]*?>\s*)?(?:[\w.?<>, *]+?\.)?(\w+|`[^`]+`)\s*[(<]"
    r"|(class|interface|object)\s+(\w+)"
    r"|(companion\s+object)\b\s*(\w+)?"
    r"|(init)\s*\{"
    r"|(constructor)\s*\()"
)
INLINE = re.compile(r"\binline\b")


class Decl:
    __slots__ = ("kind", "name", "line", "end", "inline", "body", "parent", "key", "start")

    def __init__(self, kind, name, line, start):
        self.kind, self.name, self.line, self.start = kind, name, line, start
        self.end, self.inline, self.body, self.parent, self.key = line, False, False, None, None


def line_of(starts, pos):
    return bisect.bisect_right(starts, pos)


def match_close(code, at, open_ch, close_ch):
    """Index just past the bracket matching the one at `at`."""
    depth, i, n = 0, at, len(code)
    while i < n:
        c = code[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


CONTINUES = (".", "?.", "?:", "&&", "||", "+", "-", "*", "/", "%", ")", "]", "as ", "as?", "to ", "else")


def expression_end(code, i):
    """Index of the last character of the expression starting at `i` (an expression body):
    to the end of a line at bracket depth 0 that the next line does not go on from."""
    depth, n, last = 0, len(code), i
    while i < n:
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return last
        elif c == ";" and depth == 0:
            return i
        elif c == "\n" and depth == 0:
            before = code[last:i].rstrip()
            nxt = code[i + 1:].lstrip()
            if before and not before.endswith(("=", "(", ",", ".", "+", "-", "*", "/", "&&", "||", "?:", "->", "{")) \
                    and not nxt.startswith(CONTINUES):
                return i - 1
        if not c.isspace():
            last = i
        i += 1
    return n - 1


def declarations(text):
    """The declarations of one file, each with its span (the lines of its body: to the
    matching `}`, or for an expression body to the line before the next line indented no
    deeper than the declaration)."""
    code = code_text(text)
    lines = code.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    out = []
    for m in DECL.finditer(code):
        if m.group(1):
            kind, name, at = "fun", m.group(2).strip("`"), m.start(2)
        elif m.group(3):
            if m.group(3) == "object" and code[max(0, m.start() - 10):m.start()].rstrip().endswith("companion"):
                continue  # (the companion alternative below)
            kind, name, at = m.group(3), m.group(4), m.start(4)
        elif m.group(5):
            kind, name, at = "object", m.group(6) or "Companion", m.start(5)
        elif m.group(7):
            kind, name, at = "init", "init", m.start(7)
        else:
            kind, name, at = "constructor", "constructor", m.start(8)
        ln = line_of(starts, at)
        d = Decl(kind, name, ln, m.start())
        head_start = starts[ln - 1]
        d.inline = kind == "fun" and INLINE.search(code[head_start:m.start()]) is not None
        # the header: to the `{` or `=` of the body at bracket depth 0, or the line's end
        i, depth, n = m.end() - 1 if kind in ("fun", "init", "constructor") and code[m.end() - 1] in "({" else m.end(), 0, len(code)
        body = None
        while i < n:
            c = code[i]
            if c in "(<[" and not (c == "<" and kind != "fun"):
                depth += 1
            elif c in ")>]" and not (c == ">" and (kind != "fun" or code[i - 1] == "-")):
                depth -= 1  # (the `>` of a function type's `->` closes nothing)
            elif depth <= 0 and c == "{":
                body = ("block", i)
                break
            elif depth <= 0 and c == "=" and kind == "fun" and code[i + 1:i + 2] != "=" and code[i - 1:i] not in "!<>=":
                body = ("expr", i)
                break
            elif depth <= 0 and c == "\n":
                # a header goes on to the next line when that line goes on with it
                nxt = code[i + 1:].lstrip(" \t")
                if not nxt.startswith((":", ",", "where", "{", "=", ".", ")")) and not code[:i].rstrip().endswith((",", ":", "(")):
                    break
            elif depth <= 0 and c in ";}":
                break
            i += 1
        if body and body[0] == "block":
            d.body = True
            d.end = line_of(starts, match_close(code, body[1], "{", "}") - 1)
        elif body:
            d.body = True
            d.end = line_of(starts, expression_end(code, body[1] + 1))
        else:
            d.end = line_of(starts, i) if i < n else ln
        out.append(d)
    # parents: the innermost declaration whose span holds the line (not itself)
    for d in out:
        best = None
        for p in out:
            if p is d or not p.body or not (p.line <= d.line <= p.end) or (p.line == d.line and p.start >= d.start):
                continue
            if best is None or (p.line, p.start) > (best.line, best.start):
                best = p
        d.parent = best
    return out, len(text.split("\n"))


# --- the bytecode ----------------------------------------------------------------------------

CLASS_HEAD = re.compile(r"^(?:[a-z]+ )*(class|interface|enum) (\S+?)(?: extends ([^{]+?))?(?: implements ([^{]+?))?\s*$")
METHOD_HEAD = re.compile(r"^  (?:[\w.$<>\[\], ?]+ )?([\w$.<>\"]+)\(.*\);$|^  static \{\};$")
INVOKE = re.compile(r"^\s+(\d+): (invoke\w+)\s+#\d+(?:,\s+\d+)?\s+// (?:Interface)?Method (.+)$")
LINE = re.compile(r"^\s+line (\d+): (\d+)$")


def strip_generics(s):
    out, depth = [], 0
    for c in s:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


class Method:
    __slots__ = ("cls", "name", "desc", "flags", "calls", "lines")

    def __init__(self, cls, name):
        self.cls, self.name, self.desc, self.flags, self.calls, self.lines = cls, name, "", set(), [], []

    def line_at(self, pc):
        best = None
        for start, ln in self.lines:
            if start <= pc and (best is None or start >= best[0]):
                best = (start, ln)
        return best[1] if best else None


class Klass:
    def __init__(self, name):
        self.name, self.kind, self.flags = name, "class", set()
        self.super, self.interfaces, self.methods = None, [], []
        self.source, self.enclosing, self.d2 = None, None, []
        self.smap = {"Kotlin": ([], {}), "KotlinDebug": ([], {})}


def parse_smap(lines):
    """{stratum: (ranges, files)}: ranges (out_start, out_end, file_id, in_start, step)."""
    out, stratum, section, files, ranges, pending = {}, None, None, {}, [], None
    for raw in lines:
        s = raw.strip()
        if s.startswith("*S "):
            if stratum:
                out[stratum] = (ranges, files)
            stratum, files, ranges, section = s[3:], {}, [], None
        elif s in ("*F", "*L", "*E"):
            section = s
        elif section == "*F":
            m = re.match(r"\+ (\d+) (.*)", s)
            if m:
                pending = int(m.group(1))
                files[pending] = [m.group(2), None]
            elif pending is not None:
                files[pending][1] = s  # the class's internal name
                pending = None
        elif section == "*L":
            m = re.match(r"(\d+)(?:#(\d+))?(?:,(\d+))?:(\d+)(?:,(\d+))?", s)
            if m:
                in_start, fid = int(m.group(1)), int(m.group(2) or 1)
                repeat, out_start, step = int(m.group(3) or 1), int(m.group(4)), int(m.group(5) or 1)
                ranges.append((out_start, out_start + repeat * step - 1, fid, in_start, step))
    if stratum:
        out[stratum] = (ranges, files)
    return out


def smap_lookup(stratum, line, call_site=False):
    """(class internal name, line) an output line comes from. KotlinDebug's ranges
    (`call_site`) map a whole copied range to the one line of its call site."""
    ranges, files = stratum
    for out_start, out_end, fid, in_start, step in ranges:
        if out_start <= line <= out_end:
            f = files.get(fid)
            return (f[1] if f else None), in_start if call_site else in_start + (line - out_start) // step
    return None


def own_range(c, lines_in_file):
    """The last output line that is the class's own file's: the SMAP's first range of file
    1 (`1#1,18:1`), else the file's length."""
    kotlin = c.smap.get("Kotlin")
    if kotlin and kotlin[0]:
        for out_start, out_end, fid, in_start, _ in kotlin[0]:
            if fid == 1 and out_start == 1 and in_start == 1:
                return out_end
    return lines_in_file


def parse_javap(text):
    classes = []
    k = m = None
    in_code = in_lines = in_smap = False
    smap_lines = []
    for raw in text.split("\n"):
        if raw.startswith("Classfile "):
            if k and smap_lines:
                k.smap.update(parse_smap(smap_lines))
            k, m, smap_lines, in_smap = None, None, [], False
            continue
        if k is None:
            h = CLASS_HEAD.match(strip_generics(raw))
            if h:
                k = Klass(h.group(2))
                k.kind = h.group(1)
                k.interfaces = [x.strip() for x in strip_generics(h.group(4) or "").split(",") if x.strip()]
                if h.group(1) == "interface" and h.group(3):
                    k.interfaces = [x.strip() for x in strip_generics(h.group(3)).split(",")]
                classes.append(k)
            continue
        if raw.startswith("  super_class:"):
            k.super = raw.split("// ")[-1].strip().replace("/", ".") if "//" in raw else None
        elif raw.startswith("  flags:") and m is None:
            k.flags = set(re.findall(r"ACC_\w+", raw))
        elif raw.startswith("SourceFile:"):
            k.source = raw.split('"')[1]
        elif raw.startswith("EnclosingMethod:"):
            k.enclosing = raw.split("// ")[-1].strip()
        elif raw.startswith("SourceDebugExtension:"):
            in_smap, m = True, None
        elif in_smap and raw.startswith("  "):
            smap_lines.append(raw)
        elif in_smap:
            in_smap = False
        if "d2=[" in raw and not k.d2:
            k.d2 = re.findall(r'"((?:[^"\\]|\\.)*)"', raw.split("d2=[", 1)[1])
        mh = METHOD_HEAD.match(raw) if raw.startswith("  ") and not raw.startswith("   ") else None
        if mh:
            if raw.strip() == "static {};":
                name = "<clinit>"
            else:
                name = mh.group(1).strip('"')
                if name == k.name:
                    name = "<init>"
            m = Method(k, name)
            k.methods.append(m)
            in_code = in_lines = False
            continue
        if m is None:
            continue
        s = raw.strip()
        if s.startswith("descriptor:") and not m.desc:
            m.desc = s.split(":", 1)[1].strip()
        elif s.startswith("flags:") and not m.flags:
            m.flags = set(re.findall(r"ACC_\w+", s))
        elif s == "Code:":
            in_code = True
        elif s == "LineNumberTable:":
            in_lines = True
        elif in_lines and LINE.match(raw):
            lm = LINE.match(raw)
            m.lines.append((int(lm.group(2)), int(lm.group(1))))
        elif in_code and INVOKE.match(raw):
            im = INVOKE.match(raw)
            target = im.group(3).split(":", 1)
            owner_name, desc = target[0], target[1] if len(target) > 1 else ""
            if "." in owner_name.replace('"<', "<"):
                owner, name = owner_name.rsplit(".", 1)
                owner = owner.replace("/", ".")
            else:
                owner, name = k.name, owner_name
            m.calls.append((int(im.group(1)), im.group(2), owner, name.strip('"'), desc))
        elif s and not s[0].isdigit() and in_lines and not LINE.match(raw):
            in_lines = False
    if k and smap_lines:
        k.smap.update(parse_smap(smap_lines))
    return [c for c in classes if c.methods is not None]


# --- linking ---------------------------------------------------------------------------------


def plain_name(name):
    """A method's name as written: without the module suffix of an `internal` member
    (`emit$main`) or a default-argument stub's `$default`."""
    name = name[: -len("$default")] if name.endswith("$default") else name
    return name[: -len("$main")] if name.endswith("$main") else name


def main():
    root = os.path.abspath(sys.argv[1])
    files = [f for f in walk(root) if f.endswith(".kt")]
    scratch = tempfile.mkdtemp()
    try:
        out_dir = os.path.join(scratch, "classes")
        cp = ":".join(glob.glob(os.path.join(KOTLIN_JARS, "kotlin-reflect-1.*.jar"))[:1])
        p = subprocess.run(["kotlinc", "-nowarn", "-jvm-target", "1.8", *(["-cp", cp] if cp else []), "-d", out_dir,
                            *[os.path.join(root, f) for f in files]], capture_output=True, text=True)
        errors = [l for l in p.stderr.splitlines() if ": error:" in l]
        if p.returncode != 0:
            sys.exit("ref_kotlin: kotlinc failed:\n" + "\n".join(errors[:20] or p.stderr.splitlines()[-20:]))
        class_files = sorted(glob.glob(os.path.join(out_dir, "**", "*.class"), recursive=True))
        text = []
        for i in range(0, len(class_files), 200):
            q = subprocess.run(["javap", "-v", "-p", *class_files[i:i + 200]], capture_output=True, text=True, check=True)
            text.append(q.stdout)
        classes = parse_javap("\n".join(text))
        version = re.search(r"kotlinc-jvm (\S+)", subprocess.run(["kotlinc", "-version"], capture_output=True,
                                                                  text=True).stderr or "")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    # the source files' declarations, and each file's package
    decls, nlines, package_of, raw = {}, {}, {}, {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            t = fh.read()
        decls[f], nlines[f] = declarations(t)
        raw[f] = t.split("\n")
        pm = re.search(r"^\s*package\s+([\w.]+)", code_text(t), re.M)
        package_of[f] = pm.group(1) if pm else ""
    by_source = defaultdict(list)
    for f in files:
        by_source[(package_of[f], os.path.basename(f))].append(f)

    defs = {}
    for f in files:
        for d in decls[f]:
            d.key = f"{f}:{d.line}"
            if d.key in defs:
                continue  # (two on one line: the first)
            kind = "class" if d.kind in ("class", "interface", "object") else "function" if d.body else "abstract"
            entry = {"path": f, "name": d.name, "line": d.line, "end": d.end, "kind": kind}
            if d.kind in ("init", "constructor"):
                cls = d.parent
                while cls is not None and cls.kind not in ("class", "object"):
                    cls = cls.parent
                entry.update(ctor=True, **{"class": cls.key if cls else None})
            defs[d.key] = entry

    by_name = {c.name: c for c in classes}
    skipped, external = Counter(), 0

    def file_of(c):
        pkg = c.name.rsplit(".", 1)[0] if "." in c.name else ""
        cands = by_source.get((pkg, c.source), [])
        if len(cands) != 1:
            cands = [f for f in files if os.path.basename(f) == c.source]
        return cands[0] if len(cands) == 1 else None

    cfile = {c.name: file_of(c) for c in classes}

    def is_lambda(c):
        return c.super == "kotlin.jvm.internal.Lambda"

    def is_reference(c):
        return c.super is not None and c.super.startswith("kotlin.jvm.internal.") and "Reference" in c.super

    def source_class(c):
        """The class declaration of `c` in its file (its simple name; a nested one by its
        parents' names too)."""
        f = cfile.get(c.name)
        if f is None:
            return None
        parts = c.name.rsplit(".", 1)[-1].split("$")
        if parts[-1] == "DefaultImpls":
            parts = parts[:-1]
        if not parts or parts[-1].isdigit():
            return None
        cands = [d for d in decls[f] if d.kind in ("class", "interface", "object") and d.name == parts[-1]]
        if len(cands) > 1 and len(parts) > 1:
            def chain(d):
                names, p = [], d.parent
                while p is not None:
                    if p.kind in ("class", "interface", "object"):
                        names.append(p.name)
                    p = p.parent
                return names[::-1]
            cands = [d for d in cands if chain(d) == parts[:-1]] or cands
        return cands[0] if len(cands) == 1 else None

    def around(f, line, kinds=("class", "interface", "object", "init", "constructor")):
        """The innermost declaration of `kinds` whose span holds the line."""
        best = None
        for d in decls[f]:
            if d.kind in kinds and d.line <= line <= d.end and (best is None or (d.line, d.start) > (best.line, best.start)):
                best = d
        return best

    def own_lines(m):
        f = cfile.get(m.cls.name)
        return [ln for _, ln in sorted(m.lines) if f and 0 < ln <= own_range(m.cls, nlines[f])]

    fun_cache = {}

    def fun_of(m, name=None):
        """The `fun` declaration a method compiles (by name and first line), or None."""
        key = (m.cls.name, m.name, m.desc, name)
        if key in fun_cache:
            return fun_cache[key]
        f = cfile.get(m.cls.name)
        ls = own_lines(m)
        name = plain_name(name or m.name)
        found = renamed = None
        if f and ls:
            first = min(ls)
            for d in decls[f]:
                if d.kind == "fun" and d.line <= first <= d.end:
                    if d.name == name and (found is None or (d.line, d.start) > (found.line, found.start)):
                        found = d
                    # `@JvmName("get") fun KClass<*>.asClassName()`: compiled as `get`
                    jvm_name = re.search(r'@(?:get:)?JvmName\("([^"]*)"\)', "\n".join(raw[f][max(0, d.line - 4):d.line]))
                    if jvm_name and jvm_name.group(1) == name and (renamed is None or d.line > renamed.line):
                        renamed = d
        found = found or renamed
        fun_cache[key] = found
        return found

    def find_method(owner, name, desc, seen=None):
        c = by_name.get(owner)
        if c is None:
            return None
        seen = seen or set()
        if owner in seen:
            return None
        seen.add(owner)
        for m in c.methods:
            if m.name == name and m.desc == desc:
                return m
        for parent in ([c.super] if c.super else []) + c.interfaces:
            r = find_method(parent, name, desc, seen)
            if r is not None:
                return r
        return None

    def enclosing_method(c):
        """(class, method name or None) a lambda class's code is written in."""
        if not c.enclosing:
            return None
        e = c.enclosing
        for cand in sorted(by_name, key=len, reverse=True):
            if e == cand:
                return by_name[cand], None
            if e.startswith(cand + "."):
                return by_name[cand], e[len(cand) + 1:]
        return None

    def caller_of(m, line):
        """The def key whose call is at `line` of method `m`, or None (code the compiler
        makes)."""
        c = m.cls
        f = cfile.get(c.name)
        if f is None:
            return None
        if m.name.endswith("$default"):
            d = fun_of(m, m.name[: -len("$default")])
            return d.key if d else None
        if ("ACC_SYNTHETIC" in m.flags and m.name != "<init>") or "ACC_BRIDGE" in m.flags:
            return None  # (a synthetic constructor evaluates the primary one's default arguments)
        if is_lambda(c) and c.d2 and c.d2[0] != "<anonymous>" and m.name == "invoke":
            d = fun_of(m, c.d2[0])  # a local function
            if d is not None:
                return d.key
        if is_lambda(c) or (c.name.rsplit("$", 1)[-1].isdigit() and m.name in ("<init>", "<clinit>")):
            em = enclosing_method(c)
            if em is not None:
                ec, ename = em
                if ename and ename not in ("<init>", "<clinit>"):
                    for em_m in ec.methods:
                        if em_m.name == ename:
                            d = fun_of(em_m)
                            if d is not None:
                                return d.key
        if m.name not in ("<init>", "<clinit>"):
            d = fun_of(m)
            if d is not None:
                return d.key
        d = around(f, line)
        if d is not None and d.kind in ("interface",):
            d = None
        return d.key if d is not None else f"<{f}>"

    def callee_of(owner, name, desc, depth=0):
        """('edge', key, how) | ('unresolved', why) | ('skip', why) | ('external',)."""
        if owner.startswith("kotlin.jvm.functions.Function") and name == "invoke":
            return ("unresolved", "call of a function value")
        m = find_method(owner, name, desc)
        if m is None:
            return ("external",)
        c = m.cls
        if name == "<init>":
            if is_lambda(c) or is_reference(c):
                return ("skip", "a lambda or a callable reference made")
            sc = source_class(c)
            if sc is None:
                return ("skip", "an anonymous object made")
            return ("edge", sc.key, "construct")
        if "ACC_ABSTRACT" in m.flags:
            return ("unresolved", "abstract or interface method")
        if name.startswith("access$") and depth < 3:
            inner = [(o, n, d) for (_, _, o, n, d) in m.calls if o in by_name]
            if len(inner) == 1:
                return callee_of(*inner[0], depth + 1)
            return ("skip", "a synthetic accessor (a field)")
        if "ACC_BRIDGE" in m.flags and depth < 3:
            inner = [(o, n, d) for (_, _, o, n, d) in m.calls if o in by_name and n == name]
            if len(inner) == 1:
                return callee_of(*inner[0], depth + 1)
        if name.endswith("$default"):
            d = fun_of(m, name[: -len("$default")])
        elif is_lambda(c) and name == "invoke" and c.d2 and c.d2[0] != "<anonymous>":
            d = fun_of(m, c.d2[0])
        else:
            d = fun_of(m)
        if d is None:
            if re.match(r"(get|set|is)[A-Z_]", name):
                return ("skip", "a property accessor (a property read)")
            return ("skip", "a member the compiler makes (copy, componentN, values)")
        return ("edge", d.key, "call")

    edges, unresolved, seen = [], [], set()

    def add_edge(caller, callee, site, how):
        if (caller, callee, site) not in seen:
            seen.add((caller, callee, site))
            edges.append({"caller": caller, "callee": callee, "site": site, "how": how})

    def inline_at(f, line):
        """The inline function of FOLDER whose body holds the line, or None."""
        best = None
        for d in decls[f]:
            if d.kind == "fun" and d.inline and d.line <= line <= d.end:
                if best is None or (d.line, d.start) > (best.line, best.start):
                    best = d
        return best

    def written_at(f, line):
        """The def a line of code written in a file belongs to, by place: the innermost
        function around it (a lambda's is the function around it), else the innermost
        `init` block, secondary constructor or class, else the file's top level."""
        d = around(f, line, ("fun",)) or around(f, line)
        if d is not None and d.kind == "interface":
            d = None
        return d.key if d is not None else f"<{f}>"

    def origin(c, line):
        """(file, line) a line of `c`'s code was written at, through its SMAP; None for
        code of another module (an inlined library function)."""
        kotlin = c.smap.get("Kotlin")
        if not kotlin or not kotlin[0]:
            return None
        o = smap_lookup(kotlin, line)
        if o is None or o[0] is None:
            return None
        oc = by_name.get(o[0].replace("/", "."))
        of = cfile.get(oc.name) if oc else None
        return (of, o[1]) if of else None

    for c in classes:
        f = cfile.get(c.name)
        if f is None:
            if c.source and c.source.endswith(".kt"):
                skipped["class whose source file is not found"] += 1
            continue
        # a lambda of an inline function copied for one call site: its own lines are the
        # inline function's (compiled as its own lambda too), the caller's lambda is mapped
        copied = "$$inlined$" in c.name
        debug = c.smap.get("KotlinDebug")
        last = own_range(c, nlines[f])
        for m in c.methods:
            # generated delegates to an interface's default method
            if m.calls and all(o.endswith("$DefaultImpls") and n == m.name for (_, _, o, n, _) in m.calls):
                skipped["a class's delegate to an interface's default method"] += 1
                continue
            for pc, op, owner, name, desc in m.calls:
                line = m.line_at(pc)
                if line is None:
                    continue
                if line <= last and not copied:
                    site = f"{f}:{line}:0"
                    if is_reference(c):
                        if m.name == "invoke" and "ACC_BRIDGE" not in m.flags and owner in by_name:
                            unresolved.append({"caller": None, "site": site, "why": "a callable reference (::f)"})
                        continue
                    caller = caller_of(m, line)
                    if caller is None:
                        skipped["call from code the compiler makes (a bridge, an accessor)"] += 1
                        continue
                else:
                    # inlined code: an inline function's body (its calls are its own) or
                    # the caller's lambda copied with it (the function around the lambda's)
                    o = origin(c, line)
                    if o is None or inline_at(*o) is not None:
                        continue
                    site = f"{o[0]}:{o[1]}:0"
                    caller = written_at(*o)
                if m.name.endswith("$default") and name == m.name[: -len("$default")]:
                    continue  # the stub calling its function
                if m.name == "<init>" and "ACC_SYNTHETIC" in m.flags and name == "<init>" and owner == c.name:
                    continue  # the default-argument constructor calling the constructor
                if m.name == "<clinit>" and name == "<init>" and (owner == c.name or owner.startswith(c.name + "$")):
                    target = by_name.get(owner)
                    if target is not None and (owner == c.name or target.super == c.name or owner.endswith("$Companion")):
                        skipped["an object's, a companion's or an enum entry's creation"] += 1
                        continue
                r = callee_of(owner, name, desc)
                if r[0] == "external":
                    external += 1
                elif r[0] == "skip":
                    skipped[r[1]] += 1
                elif r[0] == "unresolved":
                    unresolved.append({"caller": caller, "site": site, "why": r[1]})
                else:
                    add_edge(caller, r[1], site, r[2])
            # inline functions of FOLDER called here (no instruction calls them): a run of
            # copied lines from one, called where KotlinDebug says
            if copied:
                continue
            for pc, line in sorted(m.lines):
                if line <= last:
                    continue
                o = origin(c, line)
                target = inline_at(*o) if o else None
                if target is None:
                    continue
                site_line = line
                for _ in range(8):  # (an inline function called from another one's copy)
                    if site_line <= last:
                        break
                    at = smap_lookup(debug, site_line, call_site=True) if debug and debug[0] else None
                    site_line = at[1] if at else 0
                if not 0 < site_line <= last:
                    continue
                caller = caller_of(m, site_line)
                if caller is None or caller == target.key:
                    continue
                add_edge(caller, target.key, f"{f}:{site_line}:0", "call")

    # bases of classes: the superclass and interfaces that are classes of FOLDER
    for c in classes:
        sc = source_class(c)
        if sc is None or sc.key not in defs:
            continue
        bases = []
        for b in ([c.super] if c.super else []) + c.interfaces:
            bc = by_name.get(b)
            bsc = source_class(bc) if bc else None
            if bsc is not None and bsc.key != sc.key:
                bases.append(bsc.key)
        if bases:
            defs[sc.key]["bases"] = bases
    print(f"ref_kotlin: {len(files)} files, {len(classes)} classes, {len(defs)} defs, {len(edges)} edges, "
          f"{len(unresolved)} unresolved, {external} external", file=sys.stderr)
    json.dump({"tool": f"kotlinc {version.group(1) if version else '?'} bytecode (javap)", "defs": defs,
               "edges": edges, "unresolved": unresolved, "skipped": dict(skipped), "external_sites": external},
              sys.stdout)


if __name__ == "__main__":
    main()
