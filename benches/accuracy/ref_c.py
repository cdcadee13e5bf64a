#!/usr/bin/env python3
"""Reference call graph of a C code base, by GCC: the call graph GCC writes with
`-fcallgraph-info`, linked across translation units as the linker would.

    ref_c.py FOLDER [GCC_FLAG...] > ref.json

Every `.c` file of FOLDER (hidden folders skipped) is compiled on its own, two at a time, from
FOLDER: `gcc -O0 -c -fcallgraph-info -fkeep-inline-functions -fkeep-static-functions -w
-IDIR... GCC_FLAG... -o /dev/null`, with `-I` for every folder of FOLDER that holds a `.h`
file (FOLDER first), no configure step and no defines of our own (GCC_FLAG adds some, if a
code base needs them). GCC writes one `.ci` file (VCG) per translation unit (TU): a node per
function defined or called (`title: "NAME"`, or `"TU:NAME"` for a `static` one; `label:
"NAME\\nFILE:LINE:COL"`, `shape : ellipse` when only declared), an edge per call site
(`label: "FILE:LINE:COL"`; a call GCC makes itself, `memset` for an initialiser, has none and
is skipped). A file that does not compile (a platform's sources: `windows.h`) is skipped and
counted on stderr, and so is a unity build (a `.c` file that `#include`s other `.c` files:
its functions are theirs, compiled again).

-O0 inlines nothing (no `always_inline` in these code bases), so every call GCC keeps is an
edge; `-fkeep-*` makes GCC emit the static and `static inline` functions no TU calls, so that
they are defs too. Even at -O0 GCC drops code it folds away (`if (0) f();`, `if (sizeof(int)
== 2) f();`, statements after a `return`): no edge there. Macros are expanded: a call written
in a macro's body gets the site of the macro's use (the expansion point, also for a
multi-line body and for a macro used in another macro) and belongs to the function that uses
the macro, never to the macro (macros are no defs here); a call in a macro's argument that
the macro drops (`lua_assert(f(x))` is `((void)0)`) is no call. A call written as another
call's argument (`printf("%s",\\n zlibVersion())`, `two(ver())`) is given the outer call's
site; the reference moves it to the first `NAME(` from there to the end of the statement
(kept where it is when the name is not written there: a macro's use). A `static inline`
function of a header is compiled into each TU that includes it (title `TU:NAME`, label
`header.h:LINE:COL`): all copies are the header's one def.

Defs: every function GCC compiled (a node without `shape : ellipse`) whose label's file is
inside FOLDER; key `path:line`, the line of the function's name (paths relative to FOLDER). A
def whose name is not written on its line (made by a macro) is `generated`: not sampled, and
calls from or to it are left out (counted). A def's `end` is the line of its body's closing
`}` (braces in untaken preprocessor branches not counted). Output: the same JSON as
ref_python.py, plus `not_compiled` (the files that do not compile).

Edges, resolved as the linker does: a `static` callee (`TU:NAME`) is that TU's definition; a
non-static name is the definition in the calling TU if it has one, else the one definition of
that name among the compiled TUs (copies of one definition, same file and line, are one).
None: external (libc, system headers), counted. Left unresolved, with a reason: a call
through a function pointer (GCC's `__indirect_call`: "callee is a value of function type");
a non-static name defined in several TUs, none of them the caller's ("ambiguous": separate
programs of one repository: Lua's test modules `testes/libs/lib2.c` and `lib22.c`).

What GCC does not compile cannot be resolved, and is said so too (unresolved entries by
line, for each line of code with a `name(` on it, with no caller): the lines of a
preprocessor branch that no compiled TU takes ("in a preprocessor branch the build leaves
out": `#ifdef _WIN32`, `#else` of a feature test; found with `gcc -E -dD` of each TU: a
branch none of whose lines reaches the preprocessed output), and every line of a C or C++
file of FOLDER that no compiled TU reads ("in a file the build does not compile").
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

C_EXT = (".c",)
SOURCE_EXT = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx")
NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "(.*?)"( shape : ellipse)? \}$')
EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"(?: label: "([^"]*)")? \}$')
LOC = re.compile(r"^(.*):(\d+):(\d+)$")
UNITY = re.compile(r'^\s*#\s*include\s*[<"][^>"]+\.c[>"]', re.M)
LINEMARK = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
CALLISH = re.compile(r"[A-Za-z_]\w*\s*\(")
FLAGS = ["-O0", "-c", "-fcallgraph-info", "-fkeep-inline-functions", "-fkeep-static-functions", "-w"]


def walk(root):
    out = []
    for d, dirs, fs in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(fs):
            out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def code_lines(text):
    """The file's lines with comments and the insides of string and char literals blanked
    (every character kept where it was)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            if text[i + 1] == "/":
                j = text.find("\n", i)
                j = n if j < 0 else j
            else:
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out).split("\n")


class Sources:
    def __init__(self, root):
        self.root, self.cache = root, {}

    def code(self, path):
        if path not in self.cache:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                    self.cache[path] = code_lines(f.read())
            except OSError:
                self.cache[path] = []
        return self.cache[path]

    def end_of_function(self, path, line, skip=frozenset()):
        """The line of the `}` closing the body of the function whose name is on `line`
        (the lines in `skip`, untaken preprocessor branches, not read)."""
        ls = self.code(path)
        depth = 0
        for ln in range(line, len(ls) + 1):
            if ln in skip:
                continue
            for ch in ls[ln - 1]:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        return ln
        return line

    def call_site(self, path, line, col, name):
        """Where `name(` is written, from GCC's site of a call of `name`: GCC gives a call
        written as another call's argument (`printf("%s",\\n zlibVersion())`) the outer
        call's site; the first `name(` from there to the end of the statement is the call's.
        Kept as it is when the name is at the site or not in the statement (a macro's use)."""
        ls = self.code(path)
        if not 0 < line <= len(ls):
            return line, col
        word = re.compile(r"(?<![\w$])" + re.escape(name) + r"\s*\(")
        if word.match(ls[line - 1], col - 1):
            return line, col
        depth = 0
        for ln in range(line, min(line + 30, len(ls)) + 1):
            text = ls[ln - 1]
            for i in range(col - 1 if ln == line else 0, len(text)):
                c = text[i]
                if c == name[0] and word.match(text, i):
                    return ln, i + 1
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif c in ";{}" and depth <= 0:
                    return line, col
        return line, col

    def inactive_lines(self, path, active):
        """Lines of code in preprocessor branches none of whose lines is in `active`."""
        ls = self.code(path)
        groups, stack = [], []
        for i, l in enumerate(ls, 1):
            m = DIRECTIVE.match(l)
            if not m:
                continue
            d = m.group(1)
            if d.startswith("if"):
                stack.append(i + 1)
            elif stack:
                groups.append((stack.pop(), i - 1))
                if d != "endif":
                    stack.append(i + 1)
        out = set()
        for a, b in groups:
            if any(x in active for x in range(a, b + 1)):
                continue
            out.update(x for x in range(a, b + 1) if ls[x - 1].strip())
        return out


def compile_one(root, path, flags, scratch):
    """(.ci text, {file: active lines}) of one TU, or (None, error)."""
    d = tempfile.mkdtemp(dir=scratch)
    try:
        p = subprocess.run(["gcc", *FLAGS, *flags, path, "-o", "/dev/null", "-dumpdir", d + "/"],
                           cwd=root, capture_output=True, text=True)
        ci = [f for f in os.listdir(d) if f.endswith(".ci")]
        if p.returncode != 0 or not ci:
            return None, (p.stderr.strip().splitlines() or ["?"])[0]
        with open(os.path.join(d, ci[0]), encoding="utf-8", errors="replace") as f:
            text = f.read()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    e = subprocess.run(["gcc", "-E", "-dD", "-w", *flags, path], cwd=root, capture_output=True, text=True,
                       errors="replace")
    active = defaultdict(set)
    cur, ln = path, 1
    for l in e.stdout.split("\n"):
        m = LINEMARK.match(l)
        if m:
            ln, cur = int(m.group(1)), m.group(2)
            continue
        if l.strip():
            active[cur].add(ln)
        ln += 1
    return text, active


def parse_ci(text):
    nodes, edges = {}, []
    for l in text.split("\n"):
        m = NODE.match(l)
        if m:
            title, label, declared = m.groups()
            name, _, loc = label.partition("\\n")
            lm = LOC.match(loc)
            nodes[title] = {"name": name, "file": lm.group(1) if lm else None,
                            "line": int(lm.group(2)) if lm else None, "defined": not declared}
            continue
        m = EDGE.match(l)
        if m:
            edges.append(m.groups())
    return nodes, edges


def main():
    root = os.path.abspath(sys.argv[1])
    extra = sys.argv[2:]
    files = walk(root)
    src = Sources(root)
    hdirs = sorted({os.path.dirname(f) or "." for f in files if f.endswith(".h")}, key=lambda d: (d != ".", d))
    flags = [f"-I{d}" for d in hdirs] + extra
    skipped = Counter()
    units = []
    for f in files:
        if not f.endswith(C_EXT):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            if UNITY.search(fh.read()):
                skipped["unity build (a .c file including .c files): not compiled"] += 1
                print(f"ref_c: {f}: a unity build, not compiled", file=sys.stderr)
                continue
        units.append(f)

    def rel(p):
        """A GCC path (relative to FOLDER, or absolute) relative to FOLDER, or None outside."""
        if p is None:
            return None
        r = os.path.relpath(os.path.normpath(os.path.join(root, p)), root)
        return None if r.startswith("..") else r

    scratch = tempfile.mkdtemp(prefix="ref_c.")
    tus, active, failed = {}, defaultdict(set), []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futs = {u: pool.submit(compile_one, root, u, flags, scratch) for u in units}
            for u in units:
                text, res = futs[u].result()
                if text is None:
                    failed.append(u)
                    print(f"ref_c: {u}: does not compile: {res}", file=sys.stderr)
                    continue
                tus[u] = parse_ci(text)
                for f, ls in res.items():
                    r = rel(f)
                    if r is not None:
                        active[r] |= ls
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        skipped["file that does not compile"] = len(failed)
    print(f"ref_c: {len(tus)} of {len(units)} files compiled, {len(failed)} do not compile", file=sys.stderr)

    inactive = {f: src.inactive_lines(f, active[f]) for f in files if f.endswith(SOURCE_EXT) and f in active}
    # Defs, and the definitions of each non-static name.
    defs, key_of, global_defs = {}, {}, defaultdict(set)  # key_of[(tu, title)] -> def key or None
    for tu, (nodes, _) in tus.items():
        for title, n in nodes.items():
            if not n["defined"]:
                continue
            r = rel(n["file"])
            if r is None:
                key_of[(tu, title)] = None
                continue
            key = f"{r}:{n['line']}"
            key_of[(tu, title)] = key
            if ":" not in title:
                global_defs[title].add(key)
            if key in defs:
                continue
            code = src.code(r)
            generated = not (n["line"] <= len(code) and re.search(r"\b" + re.escape(n["name"]) + r"\b", code[n["line"] - 1]))
            d = {"path": r, "name": n["name"], "line": n["line"],
                 "end": n["line"] if generated else src.end_of_function(r, n["line"], inactive.get(r, ())),
                 "kind": "function", "class": None, "ctor": False, "in_lambda": False}
            if generated:
                d["generated"] = True
            defs[key] = d

    edges, unresolved, external = [], [], 0
    seen = set()
    for tu, (nodes, tedges) in tus.items():
        for source, target, label in tedges:
            caller = key_of.get((tu, source))
            if caller is None:
                skipped["call from a function outside the folder"] += 1
                continue
            lm = LOC.match(label or "")
            if not lm:
                skipped["call without a site"] += 1
                continue
            sfile, sline, scol = rel(lm.group(1)), int(lm.group(2)), int(lm.group(3))
            if target == "__indirect_call":
                unresolved.append({"caller": caller, "site": f"{sfile or lm.group(1)}:{sline}:{scol}",
                                   "why": "callee is a value of function type"})
                continue
            if sfile is not None and target in nodes:
                sline, scol = src.call_site(sfile, sline, scol, nodes[target]["name"])
            site = f"{sfile or lm.group(1)}:{sline}:{scol}"
            if (tu, target) in key_of:  # defined in this TU (static, or the TU's own global)
                callee = key_of[(tu, target)]
            elif ":" in target:
                callee = None  # a static declared, not defined: nothing runs here
            else:
                cands = global_defs.get(target, set())
                if len(cands) > 1:
                    unresolved.append({"caller": caller, "site": site, "why": "ambiguous: defined in several files"})
                    continue
                callee = next(iter(cands), None)
            if callee is None:
                external += 1
                continue
            if defs[callee].get("generated") or defs[caller].get("generated"):
                skipped["call from or to a macro-generated function"] += 1
                continue
            if (caller, callee, site) not in seen:
                seen.add((caller, callee, site))
                edges.append({"caller": caller, "callee": callee, "site": site, "how": "call"})

    # What GCC did not compile: lines of untaken preprocessor branches, files no TU reads.
    unread = 0
    for f in files:
        if not f.endswith(SOURCE_EXT):
            continue
        code = src.code(f)
        if f in active or f in tus:
            lines, why = inactive.get(f, ()), "in a preprocessor branch the build leaves out"
        else:
            lines, why = range(1, len(code) + 1), "in a file the build does not compile"
            unread += 1
        for ln in sorted(lines):
            if CALLISH.search(code[ln - 1]) and not DIRECTIVE.match(code[ln - 1]):
                unresolved.append({"caller": None, "site": f"{f}:{ln}:0", "why": why})
    print(f"ref_c: {len(defs)} defs, {len(edges)} edges, {len(unresolved)} unresolved; "
          f"{unread} source files no TU reads", file=sys.stderr)
    version = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    json.dump({"tool": f"gcc {version} -fcallgraph-info", "defs": defs, "edges": edges,
               "unresolved": unresolved, "skipped": dict(skipped), "external_sites": external,
               "not_compiled": failed}, sys.stdout)


if __name__ == "__main__":
    main()
