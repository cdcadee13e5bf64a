#!/usr/bin/env python3
"""Reference call graph of a Zig code base, by the Zig compiler: the LLVM IR it writes for
the code base's tests, with its debug information.

    ref_zig.py FOLDER --zig=VERSION --root=FILE [--root=FILE...] > ref.json

Each root file (relative to FOLDER) is compiled as `zig test ROOT -femit-llvm-ir=X
-fno-emit-bin` at -O Debug, by the Zig of that version (PyPI's `ziglang` package, installed
beside this run under $ZIG_HOME/VERSION; a repository pinned at a commit that builds with
it and the standard library alone). Zig compiles lazily: what the tests reach (and every
instance of a generic function they reach) is in the IR, the rest is not.

Defs come from the source (the line of the name): every `fn NAME(` and every test block (a
test is a function named by its string, a decltest `test NAME {` by its name, a test
without either `test`), spans to the closing brace. A def's key is
`path:line` (paths relative to FOLDER).

Edges, as the compiler resolved them: each `call` or `invoke` of a function defined in the
IR, its site the call's debug location (line), its caller the innermost def whose span holds
the site, its callee the def at the callee's `DISubprogram` line (all instances of a generic
function are its one def). A call the compiler inlined (an `inline fn`, whose body is copied
into the caller: no call instruction) is an edge from where it was inlined (`inlinedAt`) to
the inlined function. A callee outside FOLDER (the standard library) is external (counted);
so are the compiler's own helpers (`__zig_*`, compiler-rt, LLVM intrinsics).

Left unresolved, with a reason: a call through a function pointer (`call %x(…)`); every line
with a `name(` on it of a function the compiled tests do not reach (Zig does not analyse
it: "not compiled"), of a line holding `comptime`, and of a call of a function whose result
is a `type` or a `fn` (`Param(Id)`, `int(i8, 10)`): the compiler runs those calls at compile time, leaving no
instruction. A multiline string literal's lines (`\\\\…`) are text. Output: the same JSON as ref_python.py.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from ref_c import code_lines, walk

FN = re.compile(r"\bfn\s+(@\"[^\"]+\"|[A-Za-z_]\w*)\s*\(")
TEST = re.compile(r"^\s*test\s*(?:\"([^\"]*)\"|([A-Za-z_]\w*))?\s*\{")
META = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")


def fields(body):
    """`name: "x", line: 3, scope: !8` -> {"name": "x", "line": "3", "scope": "8"}."""
    out = {}
    for m in re.finditer(r"(\w+): (\"(?:[^\"\\]|\\.)*\"|![0-9]+|[^,]+)", body):
        v = m.group(2)
        out[m.group(1)] = v[1:-1] if v.startswith('"') else v.lstrip("!")
    return out


def declarations(text, blanked):
    """Every `fn` and `test` of a file: (name, line, end)."""
    out = []
    for i, line in enumerate(blanked):
        m = FN.search(line)
        t = TEST.match(text[i]) if not m else None
        if not m and not t:
            continue
        name = m.group(1).strip('@"') if m else (t.group(1) if t.group(1) is not None else t.group(2) or "test")
        # the body: from the first `{` after the parameters to its closing brace
        depth, end, opened, paren = 0, None, False, 0
        for j in range(i, len(blanked)):
            row = blanked[j]
            start = m.end() - 1 if (m and j == i) else 0
            for c in row[start:]:
                if c == "(":
                    paren += 1
                elif c == ")":
                    paren -= 1
                elif c == ";" and not opened and paren == 0:
                    end = j  # a declaration without a body (`extern fn`, a fn type)
                    break
                elif c == "{" and (paren == 0 or opened):
                    depth += 1
                    opened = True
                elif c == "}" and opened:
                    depth -= 1
                    if depth == 0:
                        end = j
                        break
            if end is not None:
                break
        if opened and end is not None:
            out.append((name, i + 1, end + 1))
    return out


def main():
    args = sys.argv[1:]
    root = os.path.abspath(args[0])
    version = next(a.split("=", 1)[1] for a in args if a.startswith("--zig="))
    roots = [a.split("=", 1)[1] for a in args if a.startswith("--root=")]
    home = os.path.join(os.environ.get("ZIG_HOME", os.path.expanduser("~/.cache/cc-accuracy-zig")), version)
    if not os.path.isdir(os.path.join(home, "ziglang")):
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", home, f"ziglang=={version}"],
                       check=True)
    zig = [sys.executable, "-m", "ziglang"]
    env = {**os.environ, "PYTHONPATH": home}

    files = [f for f in walk(root) if f.endswith(".zig")]
    texts, blanked, decls = {}, {}, {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            texts[f] = fh.read().split("\n")
        # (a multiline string literal's lines, `\\…`, hold text: braces in them are none)
        blanked[f] = [re.sub(r"\\\\.*", "", row) for row in code_lines("\n".join(texts[f]))]
        decls[f] = declarations(texts[f], blanked[f])
    defs = {}
    for f in files:
        for name, line, end in decls[f]:
            defs.setdefault(f"{f}:{line}", {"path": f, "name": name, "line": line, "end": end, "kind": "function"})

    def innermost(f, line):
        best = None
        for name, l, e in decls.get(f, []):
            if l <= line <= e and (best is None or l >= best[1]):
                best = (name, l, e)
        return f"{f}:{best[1]}" if best else f"<{f}>"

    def def_at(f, line):
        return f"{f}:{line}" if f"{f}:{line}" in defs else None

    edges, seen, unresolved, skipped = [], set(), [], Counter()
    external, compiled = 0, set()

    def add(caller, callee, site, how="call"):
        if (caller, callee, site) not in seen:
            seen.add((caller, callee, site))
            edges.append({"caller": caller, "callee": callee, "site": site, "how": how})

    with tempfile.TemporaryDirectory(prefix="ref_zig.") as work:
        for r in roots:
            ll = os.path.join(work, re.sub(r"\W", "_", r) + ".ll")
            p = subprocess.run(zig + ["test", r, f"-femit-llvm-ir={ll}", "-fno-emit-bin",
                                      "--cache-dir", os.path.join(work, "cache"),
                                      "--global-cache-dir", os.path.join(work, "gcache")],
                               cwd=root, env=env, capture_output=True, text=True)
            if p.returncode != 0 or not os.path.exists(ll):
                sys.exit(f"zig test {r} failed:\n{p.stderr[:4000]}")
            meta, body_of = {}, []
            with open(ll, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
            for line in lines:
                m = META.match(line)
                if m:
                    meta[m.group(1)] = (m.group(2), fields(m.group(3)))

            def file_of(n):
                kind, fl = meta.get(n, (None, {}))
                if kind != "DIFile":
                    return None
                path = os.path.join(fl.get("directory", ""), fl.get("filename", ""))
                rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
                return None if rel.startswith("..") else rel

            def subprogram(scope):
                """The DISubprogram a scope is in."""
                for _ in range(64):
                    kind, fl = meta.get(scope, (None, {}))
                    if kind == "DISubprogram" or kind is None:
                        return scope if kind else None
                    scope = fl.get("scope")
                return None

            def sp_place(sp):
                kind, fl = meta.get(sp, (None, {}))
                if kind != "DISubprogram":
                    return None
                f = file_of(fl.get("file"))
                return (f, int(fl.get("line", 0))) if f else None

            def loc(n):
                """(file, line, the location's subprogram, inlinedAt) of a DILocation."""
                kind, fl = meta.get(n, (None, {}))
                if kind != "DILocation":
                    return None
                sp = subprogram(fl.get("scope"))
                kind2, spf = meta.get(sp, (None, {}))
                f = file_of(spf.get("file")) if kind2 == "DISubprogram" else None
                return f, int(fl.get("line", 0)), sp, fl.get("inlinedAt")

            # each function the IR defines: its subprogram
            sp_of = {}
            for line in lines:
                if line.startswith("define "):
                    m = re.search(r'@("(?:[^"\\]|\\.)*"|[\w.$]+)\(.*!dbg !(\d+) \{$', line)
                    if m:
                        sp_of[m.group(1).strip('"')] = m.group(2)
            for name, sp in sp_of.items():
                place = sp_place(sp)
                if place:
                    compiled.add(place)
            inlined_done = set()
            for line in lines:
                dbg = re.search(r"!dbg !(\d+)", line)
                if not dbg or line.startswith("define "):
                    continue
                at = loc(dbg.group(1))
                if at is None:
                    continue
                f, ln, sp, inl = at
                # inlined code: an edge from where it was inlined to the inlined function
                while inl is not None:
                    outer = loc(inl)
                    if outer is None:
                        break
                    key = (inl, sp)
                    if key not in inlined_done:
                        inlined_done.add(key)
                        place = sp_place(sp)
                        if outer[0] and place and def_at(*place):
                            compiled.add(place)
                            add(innermost(outer[0], outer[1]), def_at(*place), f"{outer[0]}:{outer[1]}:0")
                        elif outer[0]:
                            external += 1
                    f, ln, sp, inl = outer
                m = re.search(r"\b(?:call|invoke)\b[^@%]*?(@(\"(?:[^\"\\]|\\.)*\"|[\w.$]+)|%[\w.]+)\(", line)
                if not m or f is None:
                    continue
                site = f"{f}:{ln}:0"
                caller = innermost(f, ln)
                if m.group(1).startswith("%"):
                    unresolved.append({"caller": caller, "site": site, "why": "a call through a function pointer"})
                    continue
                callee = m.group(2).strip('"')
                if callee.startswith(("llvm.", "__zig_", "__ubsan")) or callee not in sp_of:
                    skipped["a call of the compiler's own (intrinsics, helpers, compiler-rt)"] += 1
                    continue
                place = sp_place(sp_of[callee])
                target = def_at(*place) if place else None
                if target is None:
                    external += 1
                    continue
                add(caller, target, site)

    # what the compiler did not analyse, and calls it ran at compile time: a function whose
    # result is a `type` (`fn Param(comptime Id: type) type`) runs only there
    type_functions = set()
    for f in files:
        for name, line, end in decls[f]:
            head = " ".join(blanked[f][line - 1:min(end, line + 5)])
            m = re.search(rf"\bfn\s+{re.escape(name)}\s*\(", head)
            if m:
                depth, k = 0, m.end() - 1
                while k < len(head):
                    depth += {"(": 1, ")": -1}.get(head[k], 0)
                    k += 1
                    if depth == 0:
                        break
                if re.match(r"\s*(type\s*\{|fn\s*\()", head[k:]):
                    type_functions.add(name)
    for f in files:
        for name, line, end in decls[f]:
            if (f, line) in compiled:
                continue
            for i in range(line, end + 1):
                if re.search(r"\w\s*\(", blanked[f][i - 1]):
                    unresolved.append({"caller": None, "site": f"{f}:{i}:0", "why": "in a function the tests do not reach (not compiled)"})
        for i, row in enumerate(blanked[f], 1):
            if any(re.search(rf"\b{re.escape(n)}\s*\(", row) for n in type_functions):
                unresolved.append({"caller": None, "site": f"{f}:{i}:0", "why": "a call of a function that makes a type (run at compile time)"})
            if re.search(r"\bcomptime\b", row) and re.search(r"\w\s*\(", row):
                unresolved.append({"caller": None, "site": f"{f}:{i}:0", "why": "a call the compiler runs at compile time"})
    for k in list(defs):
        d = defs[k]
        if (d["path"], d["line"]) not in compiled:
            d["generated"] = True  # not compiled: not sampled (nothing is known of its calls)
    print(f"ref_zig: {len(files)} files, {len(defs)} defs ({sum(1 for d in defs.values() if not d.get('generated'))} compiled), "
          f"{len(edges)} edges, {len(unresolved)} unresolved, {external} external; skipped {dict(skipped)}", file=sys.stderr)
    json.dump({"tool": f"zig {version} LLVM IR (zig test)", "defs": defs, "edges": edges, "unresolved": unresolved,
               "skipped": dict(skipped), "external_sites": external}, sys.stdout)


if __name__ == "__main__":
    main()
