#!/usr/bin/env python3
"""Reference call graph of a Rust crate, by rustc: every call terminator of the crate's MIR.

    ref_rust.py MANIFEST INDEXED_FOLDER > ref.json

MANIFEST is the crate's Cargo.toml (a workspace member is fine); INDEXED_FOLDER the folder
cc-server indexed (its `src`), which the output's paths are relative to. The crate's library
is compiled by `cargo rustc --lib -- -Zunpretty=mir -Zmir-include-spans=yes` (stable rustc
with RUSTC_BOOTSTRAP=1; $CARGO_TARGET_DIR or a folder beside the manifest) and the printed
MIR is read: each body is a function, each `dest = PATH(args) -> …` terminator a call whose
callee rustc has already resolved: a free function or an inherent method by its path, a trait
method as `<Type as Trait>::m`.

Output: the same JSON as ref_python.py. Defs are functions and methods with a body (a trait's
required methods have none); a def's line is its `fn NAME` line in the source. A function
whose `fn NAME` is not in the source around its span is macro-generated: it is a def
(`generated`), left out of the sample. A call inside a closure belongs to the function
around it; one in a module's `const`/`static` initialiser to the file's top level; the test
harness's (a `#[test]` function's `const` calling it) is left out.

A `<Type as Trait>::m` callee is the `m` of the crate's `impl Trait for Type` (matched by
the trait's and the self type's last path segments; a blanket `impl<T> Trait for &mut T`
serves `&mut` anything; a call on `&T` or `&mut T` is the impl for `T` when there is one,
which core's and the crate's forwarding impls for references call), else the trait's own
default `m`. Left unresolved, with a reason:
a trait method on a generic parameter (`<S as Shape>::area`) or a trait object (`<dyn
Shape as Shape>::area`), which the compiler picks at monomorphisation or at run time; a call
of a value of function type (a closure or fn pointer held in a variable); a path the crate
defines that names no body here (ambiguous or not found). Calls into other crates
(`core::`, `std::`, dependencies) are external; calls of the crate's own closures are not
calls of a def and are not counted.
"""
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

SPAN = re.compile(r"(?:in )?(?:scope \d+ )?at ([^:\s]+\.rs):(\d+):(\d+): (\d+):(\d+)")
HEADER = re.compile(r"^(fn|const|static|static mut) ")
SPAN_PLUS = re.compile(r"\+ span: ([^:\s]+\.rs):(\d+):(\d+): (\d+):(\d+)")
CALL = re.compile(r"\) -> (?:\[return: |unwind )")
IMPL = re.compile(r"<impl at ([^:\s]+\.rs):(\d+):(\d+): (\d+):(\d+)>")


def strip_generics(path):
    """`a::B::<T, U>::f::<X>` -> `a::B::f` (balanced `::<…>` removed)."""
    out, i = [], 0
    while i < len(path):
        if path.startswith("::<", i) and not path.startswith("::<impl at ", i):
            depth, j = 0, i + 2
            while j < len(path):
                c = path[j]
                if c in "<{[(":
                    depth += 1
                elif c in ">}])" and not (c == ">" and path[j - 1] == "-"):
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            i = j + 1
            continue
        out.append(path[i])
        i += 1
    return "".join(out)


def scan(s, opens="<{[(", closes=">}])"):
    """Each (index, char, depth) of `s`: the brackets around the char (`->` closes none)."""
    depth = 0
    for i, c in enumerate(s):
        if c in opens:
            yield i, c, depth
            depth += 1
        elif c in closes and not (c == ">" and i and s[i - 1] == "-"):
            depth -= 1
            yield i, c, depth
        else:
            yield i, c, depth


def split_top(s, sep):
    """Split `s` at the first `sep` outside brackets."""
    for i, _, depth in scan(s):
        if depth == 0 and s.startswith(sep, i):
            return s[:i], s[i + len(sep):]
    return s, None


def callee_text(rhs):
    """`<A as B>::m::<T>(move _1, …) -> …` -> `<A as B>::m::<T>` (up to the args' `(`)."""
    for i, c, depth in scan(rhs, "<{[", ">}]"):
        if c == "(" and depth == 0:
            return rhs[:i]
    return None


def type_head(t, generics=()):
    """What a self type is matched by: its reference prefix and its last path segment's
    name, `*` for one of the impl's own generic parameters."""
    t = t.strip()
    ref = ""
    m = re.match(r"^&(?:'\w+\s+)?(mut\s+)?", t)
    if m:
        ref = "&mut " if m.group(1) else "&"
        t = t[m.end():]
    if t.startswith("dyn ") or t.startswith("impl "):
        return ref + "dyn"
    if t.startswith("["):
        return ref + "[]"
    base = strip_generics(t)
    base = base.split("<", 1)[0]
    name = base.rsplit("::", 1)[-1].strip()
    if name in generics or re.fullmatch(r"Self|[A-Z][0-9]?", name):  # a generic parameter
        name = "*"
    return ref + name


class Source:
    def __init__(self, root):
        self.root = root
        self.cache = {}

    def lines(self, path):
        if path not in self.cache:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8") as f:
                    self.cache[path] = f.read().split("\n")
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def text(self, path, l1, c1, l2, c2):
        ls = self.lines(path)
        if not ls or l1 > len(ls):
            return ""
        if l1 == l2:
            return ls[l1 - 1][c1 - 1:c2 - 1]
        return "\n".join([ls[l1 - 1][c1 - 1:], *ls[l1:l2 - 1], ls[l2 - 1][:c2 - 1]])

    def in_macro(self, path, line):
        """Whether `line` is inside a `macro_rules!` body (a function written there is made
        where the macro is used)."""
        key = ("macros", path)
        if key not in self.cache:
            self.cache[key] = [(i + 1, self.end_of_item(path, i + 1)) for i, l in enumerate(self.lines(path))
                               if re.match(r"\s*(#\[[^\]]*\]\s*)*(pub(\([^)]*\))?\s+)?macro_rules!", l)]
        return any(a <= line <= b for a, b in self.cache[key])

    def end_of_item(self, path, line):
        """The line of the `}` that closes the item starting at `line` (a small lexer:
        comments, strings, raw strings and char literals skipped)."""
        ls = self.lines(path)
        text = "\n".join(ls[line - 1:])
        depth, i, n, ln = 0, 0, len(text), line
        opened = False
        while i < n:
            c = text[i]
            if c == "\n":
                ln += 1
            elif text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            elif text.startswith("/*", i):
                j = text.find("*/", i)
                j = n if j < 0 else j + 2
                ln += text.count("\n", i, j)
                i = j
                continue
            elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not text[i - 1].isalnum()):
                hashes = re.match(r'r(#*)"', text[i:]).group(1)
                j = text.find('"' + hashes, i + len(hashes) + 2)
                j = n if j < 0 else j + 1 + len(hashes)
                ln += text.count("\n", i, j)
                i = j
                continue
            elif c == '"':
                j = i + 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                ln += text.count("\n", i, j)
                i = j + 1
                continue
            elif c == "'":
                m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:i + 12])
                if m:
                    i += m.end()
                    continue
            elif c == "{":
                depth += 1
                opened = True
            elif c == "}":
                depth -= 1
                if opened and depth == 0:
                    return ln
            elif c == ";" and not opened:
                return ln
            i += 1
        return line


def run_mir(manifest):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    env.setdefault("CARGO_TARGET_DIR", os.path.join(os.path.dirname(os.path.abspath(manifest)), "target-mir"))
    p = subprocess.run(
        ["cargo", "rustc", "--lib", "--profile", "test", "-q", "--manifest-path", manifest, "--",
         "-Zunpretty=mir", "-Zmir-opt-level=0", "-Zmir-include-spans=yes", "-Ztrim-diagnostic-paths=no"],
        capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"cargo rustc failed:\n{p.stderr[-4000:]}")
    meta = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1", "--manifest-path", manifest],
                          capture_output=True, text=True, env=env, check=True)
    ws = json.loads(meta.stdout)["workspace_root"]
    return p.stdout, ws


def bodies(mir):
    """(header line, body lines) of each MIR body."""
    cur = None
    for line in mir.split("\n"):
        if cur is None:
            if HEADER.match(line) and line.endswith("{"):  # (`const X: T = const 1;` has none)
                cur = (line, [])
        elif line == "}":
            yield cur
            cur = None
        else:
            cur[1].append(line)


def main():
    manifest, indexed = sys.argv[1], os.path.abspath(sys.argv[2])
    mir, ws = run_mir(manifest)
    src = Source(ws)

    def rel(p):
        """A span's path (relative to the workspace root) relative to the indexed folder, or
        None outside it."""
        full = os.path.normpath(os.path.join(ws, p))
        r = os.path.relpath(full, indexed)
        return None if r.startswith("..") else r

    defs, by_path, skipped = {}, {}, Counter()
    impls = {}  # impl span -> {"trait": last segment or None, "head": str, "methods": {name: key}}
    parsed = []  # (caller key, body lines)
    # `#[test] fn t` makes a `const t` whose closure calls `t()`: the harness's call, not code's.
    consts = set(re.findall(r"^const (\S+?): ", mir, re.M))
    for header, lines in bodies(mir):
        kind = HEADER.match(header).group(1)
        name_end = header.find("(") if kind == "fn" else header.find(":", len(kind) + 1)
        path = header[len(kind) + 1:name_end].strip()
        spans = [SPAN.search(l) for l in lines]
        spans = [s for s in spans if s]
        if kind != "fn":
            if "<impl at" in path:
                skipped["associated const"] += 1
                continue
            files = Counter(s.group(1) for s in spans)
            if not files:
                continue
            r = rel(files.most_common(1)[0][0])
            if r is not None:
                parsed.append((f"<{r}>", lines))
            continue
        outer = re.sub(r"(::\{closure#\d+\})+$", "", path)
        if outer != path:
            if outer in consts:
                skipped["test harness"] += 1
            else:
                parsed.append((("closure", outer), lines))
            continue
        # The def: its `fn NAME` line, found up from the first parameter's or the return
        # place's span (both in the signature unless a macro made the function).
        fname = strip_generics(path).rsplit("::", 1)[-1]
        argc = len(re.findall(r"\b_\d+: ", header[name_end:]))
        params = re.compile(r"    debug \w+ => _(\d+);")
        sig = next((SPAN.search(l) for l in lines if (p := params.match(l)) and int(p.group(1)) <= argc), None) or \
            next((SPAN.search(l) for l in lines if "return place" in l), None)
        if sig is None:
            skipped["no span"] += 1
            continue
        file, line = sig.group(1), int(sig.group(2))
        ls = src.lines(file)
        pat = re.compile(r"\bfn\s+(r#)?" + re.escape(fname) + r"\b")
        defline = next((l for l in range(line, max(0, line - 60), -1) if l <= len(ls) and pat.search(ls[l - 1])), None)
        r = rel(file)
        if r is None:
            skipped["outside the indexed folder"] += 1
            continue
        generated = defline is None or src.in_macro(file, defline)
        dl = line if generated else defline
        key = f"{r}:{dl}"
        d = {"path": r, "name": fname, "line": dl, "end": dl if generated else src.end_of_item(file, dl),
             "kind": "function", "class": None, "ctor": False, "in_lambda": False}
        if generated:
            d["generated"] = True
        defs[key] = d
        by_path[strip_generics(path)] = key
        m = IMPL.search(path)
        if m:
            span = m.group(0)
            if span not in impls:
                text = src.text(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)))
                if re.match(r"\s*(unsafe\s+)?impl\b", text):
                    impls[span] = parse_impl(text)
                else:
                    # `#[derive(Debug)]`: the span is the derive's; the type follows it
                    ls = src.lines(m.group(1))
                    after = "\n".join(ls[int(m.group(2)) - 1:int(m.group(2)) + 40])
                    ty = re.search(r"\b(?:struct|enum|union)\s+(\w+)", after)
                    impls[span] = {"trait": text.strip().rsplit("::", 1)[-1], "head": ty.group(1) if ty else "?",
                                   "methods": {}}
            impls[span]["methods"][fname] = key
            impls[span]["module"] = path[:m.start()].rstrip(":")
            d["class"] = None
        parsed.append((key, lines))

    # Traits: the default methods' paths, `trait::path::Trait::m` -> key.
    defaults = defaultdict(dict)  # trait last segment -> {m: key}
    for p, k in by_path.items():
        if "<impl at" in p:
            continue
        head, _, m = p.rpartition("::")
        if head:
            defaults[head.rsplit("::", 1)[-1]][m] = k
    by_trait = defaultdict(list)
    inherent = defaultdict(list)
    for span, im in impls.items():
        if im["trait"]:
            by_trait[im["trait"]].append(im)
        else:
            inherent[im["head"].lstrip("&").replace("mut ", "")].append(im)
    # Traits the crate defines (a trait of another crate is served by the crate's impls only
    # for the crate's own types).
    defined = set()
    for dirpath, _, names in os.walk(indexed):
        for n in names:
            if n.endswith(".rs"):
                with open(os.path.join(dirpath, n), encoding="utf-8", errors="replace") as f:
                    defined.update(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+(\w+)", f.read(), re.M))
    local_traits = set(by_trait) | defined

    def resolve(text):
        """A callee key, or ("why", reason), or None (another crate's)."""
        t = strip_generics(text.strip())
        if t.startswith("<"):
            inner_end, depth = None, 0
            for i, c in enumerate(t):
                if c == "<":
                    depth += 1
                elif c == ">" and t[i - 1] != "-":
                    depth -= 1
                    if depth == 0:
                        inner_end = i
                        break
            if inner_end is None or not t.startswith(">::", inner_end):
                return None
            inner, m = t[1:inner_end], t[inner_end + 3:]
            self_ty, trait = split_top(inner, " as ")
            if trait is None:
                # `<impl [T]>::m` style inherent paths of other crates
                return None
            tname = strip_generics(trait.strip()).split("<", 1)[0].rsplit("::", 1)[-1]
            if tname not in local_traits:
                return None
            head = type_head(self_ty)
            if head.lstrip("&").replace("mut ", "") == "*":
                # `<&mut Self as Buf>::remaining` in a generic body: a blanket impl's
                # forwarding method, then whatever `Self` is
                return ("why", "trait method on a generic parameter") if tname in local_traits else None
            base = re.sub(r"^&(mut )?", "", head)
            prefix = head[: len(head) - len(base)]
            impls_of = by_trait.get(tname, [])
            # `<&mut BytesMut as AsRef<[u8]>>::as_ref`: a `&T`/`&mut T` impl (core's or the
            # crate's blanket one) forwards to T's, which is where the call lands
            cands = [im for im in impls_of if im["head"] == base] if prefix else []
            cands = cands or [im for im in impls_of if im["head"] == head]
            if not cands and base not in ("*", "dyn"):
                cands = [im for im in impls_of if im["head"] == prefix + "*"]
            if head.endswith("*") and not cands:
                return ("why", "trait method on a generic parameter") if tname in defined or by_trait.get(tname) else None
            if head.endswith("dyn"):
                return ("why", "trait method on a trait object") if tname in defined else None
            if len(cands) > 1:
                return ("why", "impl not identified (several match)")
            if cands and m in cands[0]["methods"]:
                return cands[0]["methods"][m]
            if m in defaults.get(tname, {}):
                return defaults[tname][m]
            if cands:
                return None  # the impl leaves `m` to another crate's trait default
            if os.environ.get("REF_DEBUG") and tname in defined:
                print("impl not found:", t, file=sys.stderr)
            return ("why", "impl not found") if tname in defined else None
        if t.startswith(("move ", "copy ", "(*", "_")):
            return ("why", "callee is a value of function type")
        if t in by_path:
            return by_path[t]
        head, _, m = t.rpartition("::")
        tyname = head.rsplit("::", 1)[-1]
        cands = [im for im in inherent.get(tyname, []) if m in im["methods"]]
        if len(cands) > 1:  # types of one name in several modules: the impl beside the type
            cands = [im for im in cands if im["module"] == head.rpartition("::")[0]] or cands
        cands = [im["methods"][m] for im in cands]
        if len(cands) == 1:
            return cands[0]
        if len(cands) > 1:
            return ("why", "ambiguous type name")
        first = t.split("::", 1)[0]
        if first in ("core", "std", "alloc") or "::" not in t and t not in by_path:
            return None
        if tyname in inherent or head in by_path or any(p.startswith(head + "::") for p in by_path):
            if os.environ.get("REF_DEBUG"):
                print("not resolved:", t, file=sys.stderr)
            return ("why", "not resolved")
        return None

    edges, unresolved, external = [], [], 0
    seen = set()
    for caller, lines in parsed:
        if isinstance(caller, tuple):
            caller = by_path.get(strip_generics(caller[1]))
            if caller is None:
                continue
        for i, l in enumerate(lines):
            code, _, comment = l.partition("//")
            if " = " not in code or not CALL.search(code):
                continue
            rhs = code.split(" = ", 1)[1]
            ct = callee_text(rhs)
            if ct is None or ct.startswith(("const ", "[")):
                continue
            if "{closure@" in ct and ("::call" in ct or ct.startswith(("<{closure", "<&{closure", "<&mut {closure"))):
                continue  # a call of one of this def's own closures
            # The site: the callee's own span (a method's name), else the whole call's.
            s = None
            for c in lines[i + 1:i + 4]:
                if "+ span:" in c:
                    s = SPAN_PLUS.search(c)
                    break
                if "// + " not in c:
                    break
            s = s or SPAN.search(comment)
            if not s:
                continue
            sr = rel(s.group(1))
            site = f"{sr or s.group(1)}:{s.group(2)}:{s.group(3)}"
            r = resolve(ct)
            if r is None:
                external += 1
            elif isinstance(r, tuple):
                unresolved.append({"caller": caller, "site": site, "why": r[1]})
            elif defs[r].get("generated") or defs.get(caller, {}).get("generated"):
                skipped["call from or to a macro-generated or derived function"] += 1
            else:
                if (caller, r, site) not in seen:
                    seen.add((caller, r, site))
                    edges.append({"caller": caller, "callee": r, "site": site, "how": "call"})
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    json.dump({"tool": f"{rustc} MIR", "defs": defs, "edges": edges, "unresolved": unresolved,
               "skipped": dict(skipped), "external_sites": external}, sys.stdout, indent=None)


def parse_impl(text):
    """`impl<T: Buf> Buf for &mut T` -> trait `Buf`, head `&mut *`; `impl Bytes` -> head `Bytes`."""
    t = " ".join(text.split())
    t = t[len("unsafe "):] if t.startswith("unsafe ") else t
    assert t.startswith("impl"), t
    t = t[4:]
    generics = ()
    if t.startswith("<"):
        depth = 0
        for i, c in enumerate(t):
            if c == "<":
                depth += 1
            elif c == ">" and t[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    params = t[1:i]
                    t = t[i + 1:]
                    break
        generics = tuple(p.strip().split(":")[0].strip() for p in split_all(params) if not p.strip().startswith("'"))
        generics = tuple(g.replace("const ", "").strip() for g in generics)
    t = t.split(" where ", 1)[0].strip()
    t = t.lstrip("!").strip()
    trait, self_ty = split_top(t, " for ")
    if self_ty is None:
        return {"trait": None, "head": type_head(trait, generics), "methods": {}}
    tname = strip_generics(trait).split("<", 1)[0].rsplit("::", 1)[-1].strip()
    return {"trait": tname, "head": type_head(self_ty, generics), "methods": {}}


def split_all(s):
    """`s` split at its commas outside brackets."""
    out, start = [], 0
    for i, c, depth in scan(s):
        if c == "," and depth == 0:
            out.append(s[start:i])
            start = i + 1
    out.append(s[start:])
    return out


if __name__ == "__main__":
    main()
