#!/usr/bin/env python3
"""Reference call graph of an Ada code base, by GNAT (GCC's Ada front end): the call graph
GCC writes with `-fcallgraph-info`, linked across compilation units as the binder would.

    ref_ada.py [--skip=GLOB...] FOLDER [GCC_FLAG...] > ref.json

Every body (`.adb`) of FOLDER, and every spec (`.ads`) without a body beside it, is compiled
on its own, two at a time ($REF_C_JOBS), in a scratch folder: `gcc -c -O0 -fcallgraph-info
-gnatws -gnatf -IDIR... GCC_FLAG... FILE`, with `-I` for every folder of FOLDER that holds an
Ada source (FOLDER first). A subunit (`separate (P)`) is compiled with its parent, not on its
own; `--skip` leaves out a platform's alternative bodies. A file that does not compile is
skipped and counted on stderr. GCC writes one `.ci` file (VCG) per unit, as for C
(ref_c.py): a node per subprogram compiled or called (`title: "pkg__sub__2"`, `"FILE:NAME.N"`
for a nested one; `label: "Name\\nFILE:LINE:COL"`, at its `procedure`/`function` keyword;
`shape : ellipse` when only declared), an edge per call (`label: "FILE:LINE:COL"`, at the
callee's name, or at the prefix of `Pkg.Name`).

-O0 inlines nothing (no `-gnatn`), so every call GNAT keeps is an edge. Defs: the subprograms
compiled (a node without `shape : ellipse`) whose label's file is in FOLDER and whose label
points at a `procedure`, `function` or `entry` written there (key `path:line`, the line of the
keyword; its `end` the line of the `end NAME;` at its indentation). A generic's instances are
compiled where they are declared and labelled with the generic's place and the instance's
name: all of them are the generic's one def, called where the instance is called, and what
each instance's body calls is the generic body's calls (a formal subprogram's call goes to
each instance's actual). What GNAT makes itself (init procedures, finalizers, stream and
equality helpers of a type, a package's elaboration code) labels a type, a package or
`<built-in>`: no def; calls from and to it are left out, counted in `skipped`, and so are
calls of operators (`"="`, `"+"`), as the other references do.

Edges, resolved as the binder links: a nested subprogram (`FILE:` titles) is its unit's; a
library-level name is the one definition of that name among the compiled units. None:
external (the run-time library, `Ada.*`, `System.*`, `Interfaces.*`, `GNAT.*`, range checks),
counted. Left unresolved, with a reason: a dispatching call (GNAT's edge to a slot of the
tagged type, `N:type`: which primitive runs is the tag's choice) and a call through an
access-to-subprogram value (`__indirect_call`). What GNAT did not compile (a file of FOLDER
no unit reads: a demo that does not build, an alternative body) is unresolved by line, every
line with code on it ("in a file the build does not compile"), and so is every line of an
assertion (`pragma Assert`, `Debug`, `Assume`, `Loop_Invariant`, `Check`: GNAT compiles them
only with -gnata). An operator's def is named by its symbol (`"+"` is `+`). Output: the same JSON as
ref_python.py, plus `not_compiled`.
"""
import concurrent.futures
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

import ref_c  # its folder walk and its sources, read once each
from ref_c import walk

NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "(.*?)"( shape : ellipse)? \}$', re.M)
EDGE = re.compile(r'^edge: \{\s*sourcename: "([^"]*)"\s*targetname: "([^"]*)"(?:\s*label: "([^"]*)")?\s*\}', re.M)
LOC = re.compile(r"^(.*):(\d+):(\d+)$")
SLOT = re.compile(r"^-?\d+:")  # `3:pkg__type,pkg__type`: a slot of a tagged type's dispatch table
SUBPROGRAM = re.compile(r'(?i)(?:(?:not\s+)?overriding\s+)?(?:procedure|function|entry)\s+((?:\w+\.)*(?:\w+|"[^"]*"))')
FLAGS = ["-c", "-O0", "-fcallgraph-info", "-gnatws", "-gnatf"]


def code_lines(text):
    """The file's lines with comments and the insides of string literals blanked (every
    character kept where it was; a character literal `'"'` is not a string's start)."""
    out = []
    for line in text.split("\n"):
        chars, i, n = list(line), 0, len(line)
        while i < n:
            c = line[i]
            if line.startswith("--", i):
                for k in range(i, n):
                    chars[k] = " "
                break
            if c == "'" and i + 2 < n and line[i + 2] == "'" and (i == 0 or not line[i - 1].isalnum()):
                i += 3  # a character literal
                continue
            if c == '"':
                j = i + 1
                while j < n and not (line[j] == '"' and not line.startswith('""', j)):
                    j += 2 if line.startswith('""', j) else 1
                for k in range(i + 1, min(j, n)):
                    chars[k] = " "
                i = j + 1
                continue
            i += 1
        out.append("".join(chars))
    return out


class Sources(ref_c.Sources):
    def __init__(self, root):
        super().__init__(root, code_lines)

    def raw(self, path, line):
        """The line as written (an operator's name is a string literal)."""
        try:
            with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                ls = f.read().split("\n")
        except OSError:
            return ""
        return ls[line - 1] if 0 < line <= len(ls) else ""

    def subprogram_at(self, path, line, col):
        """The name of the subprogram whose `procedure`/`function` keyword is at (line,
        col), as written; None when none is."""
        ls = self.code(path)
        if not 0 < line <= len(ls):
            return None
        m = SUBPROGRAM.match(ls[line - 1], col - 1)
        if not m:
            return None
        name = m.group(1)
        if name.endswith('"'):  # an operator: the blanked literal read back from the source
            raw = SUBPROGRAM.match(self.raw(path, line), col - 1)
            name = raw.group(1) if raw else name
        return name.rsplit(".", 1)[-1].strip('"')  # an operator by its symbol, `"+"`: `+`

    def end_of(self, path, line, name):
        """The line of `end NAME;` closing the subprogram declared on `line` (at its
        indentation or less); `line` for a declaration without a body."""
        ls = self.code(path)
        if not 0 < line <= len(ls):
            return line
        indent = len(ls[line - 1]) - len(ls[line - 1].lstrip())
        # (an operator's `end "+";` reads `end " ";` here: literals are blanked)
        named = r'"\s*"' if name.startswith('"') else re.escape(name)
        end = re.compile(r"(?i)^(\s*)end\s+(?:[\w.]+\.)?" + named + r"\s*;")
        for ln in range(line, len(ls) + 1):
            m = end.match(ls[ln - 1])
            if m and len(m.group(1)) <= indent:
                return ln
        return line


def is_subunit(text):
    code = "\n".join(code_lines(text))
    return re.match(r"(?is)\s*(?:(?:with|use|pragma)\b[^;]*;\s*)*separate\s*\(", code) is not None


def compile_one(root, path, flags, scratch):
    """(.ci text, None) of one unit, or (None, error)."""
    d = tempfile.mkdtemp(dir=scratch)
    try:
        p = subprocess.run(["gcc", *FLAGS, *flags, os.path.join(root, path)], cwd=d, capture_output=True, text=True)
        cis = glob.glob(os.path.join(d, "*.ci"))
        if p.returncode != 0 and "cannot generate code" in p.stderr:
            return "", None  # a spec of declarations only: nothing to compile
        if p.returncode != 0 or not cis:
            return None, (p.stderr.strip().splitlines() or ["no .ci written"])[0]
        with open(cis[0], encoding="utf-8", errors="replace") as f:
            return f.read(), None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    args = sys.argv[1:]
    skips = [a.split("=", 1)[1] for a in args if a.startswith("--skip=")]
    args = [a for a in args if not a.startswith("--skip=")]
    root = os.path.abspath(args[0])
    flags = args[1:]
    files = walk(root)
    ada = [f for f in files if f.endswith((".adb", ".ads")) and not any(fnmatch.fnmatch(f, g) for g in skips)]
    dirs = sorted({os.path.dirname(f) for f in ada}, key=lambda d: (d != "", d))
    incl = [f"-I{os.path.join(root, d)}" if d else f"-I{root}" for d in dirs]
    bodies = {f[:-4] for f in ada if f.endswith(".adb")}
    units = []
    for f in ada:
        if f.endswith(".ads") and f[:-4] in bodies:
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            if f.endswith(".adb") and is_subunit(fh.read()):
                continue
        units.append(f)
    by_base = defaultdict(list)  # GNAT names a file of another folder by its base name
    for f in ada:
        by_base[os.path.basename(f)].append(f)

    def rel(p):
        if os.path.isabs(p):
            r = os.path.relpath(p, root)
            return None if r.startswith("..") else r
        c = by_base.get(os.path.basename(p), [])
        return c[0] if len(c) == 1 else None

    scratch = tempfile.mkdtemp()
    failed = {}
    cis = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("REF_C_JOBS", "2"))) as ex:
            futs = {ex.submit(compile_one, root, u, [*incl, *flags], scratch): u for u in units}
            for fut in concurrent.futures.as_completed(futs):
                text, err = fut.result()
                if text is None:
                    failed[futs[fut]] = err
                else:
                    cis[futs[fut]] = text
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for u, err in sorted(failed.items()):
        print(f"ref_ada: not compiled: {u}: {err}", file=sys.stderr)

    src = Sources(root)
    defs, key_of_title, local = {}, {}, {}
    skipped, external = Counter(), 0
    GEN = "<generated>"
    nodes_of = {}
    for tu, text in sorted(cis.items()):
        nodes = {}
        for m in NODE.finditer(text):
            title, label, ellipse = m.group(1), m.group(2), bool(m.group(3))
            name, _, loc = label.partition("\\n")
            lm = LOC.match(loc)
            nodes[title] = {"name": name, "file": rel(lm.group(1)) if lm else None, "built_in": lm is None,
                            "line": int(lm.group(2)) if lm else 0, "col": int(lm.group(3)) if lm else 0,
                            "ellipse": ellipse}
        nodes_of[tu] = nodes
        for title, n in nodes.items():
            if n["ellipse"]:
                continue
            scope = local.setdefault(tu, {}) if ":" in title else key_of_title
            if n["file"] is None:
                # `<built-in>`: GNAT's own; elsewhere: an instance of a run-time generic
                scope[title] = GEN if n["built_in"] else None
                continue
            written = src.subprogram_at(n["file"], n["line"], n["col"])
            if written is None:
                scope[title] = GEN  # a type's or a package's helper that GNAT makes
                continue
            key = f"{n['file']}:{n['line']}"
            scope[title] = key
            if key not in defs:
                operator = not re.match(r"\w", written)
                defs[key] = {"path": n["file"], "name": written, "line": n["line"],
                             "end": src.end_of(n["file"], n["line"], f'"{written}"' if operator else written),
                             "kind": "function", "operator": operator}
    edges, unresolved, seen = [], [], set()
    for tu, text in sorted(cis.items()):
        nodes = nodes_of[tu]
        scope = local.get(tu, {})
        for m in EDGE.finditer(text):
            source, target, label = m.group(1), m.group(2), m.group(3) or ""
            caller = scope.get(source) if ":" in source and not SLOT.match(source) else key_of_title.get(source)
            if caller is None:
                skipped["call from an instance of a run-time generic (Ada.Containers.Vectors)"] += 1
                continue
            if caller == GEN:
                skipped["call from code GNAT makes (elaboration, a task body, a type's helpers)"] += 1
                continue
            lm = LOC.match(label)
            sfile = rel(lm.group(1)) if lm else None
            site = f"{sfile}:{lm.group(2)}:{lm.group(3)}" if sfile else None
            if SLOT.match(target):
                if site:
                    unresolved.append({"caller": caller, "site": site, "why": "dispatching call (a tagged type's primitive)"})
                continue
            if target == "__indirect_call":
                if site:
                    unresolved.append({"caller": caller, "site": site, "why": "call through an access-to-subprogram value"})
                continue
            callee = scope.get(target) if ":" in target else key_of_title.get(target)
            if callee is None:
                external += 1
                continue
            if callee == GEN:
                skipped["call of a subprogram GNAT makes (init procedure, finalizer, stream attribute)"] += 1
                continue
            if defs[callee]["operator"]:
                skipped["call of an operator"] += 1
                continue
            if site is None:
                skipped["call without a site in FOLDER"] += 1
                continue
            if (caller, callee, site) not in seen:
                seen.add((caller, callee, site))
                edges.append({"caller": caller, "callee": callee, "site": site, "how": "call"})
    for d in defs.values():
        d.pop("operator")
    # Assertions GNAT compiles only with -gnata (`pragma Assert (F (X));`): not calls here.
    for f in files:
        if not f.endswith((".adb", ".ads")) or f not in set(ada):
            continue
        code = src.code(f)
        ln = 0
        while ln < len(code):
            if re.match(r"(?i)\s*pragma\s+(assert|assert_and_cut|assume|debug|loop_invariant|check)\b", code[ln]):
                first = ln
                while ln < len(code) and ";" not in code[ln]:
                    ln += 1
                for k in range(first, min(ln, len(code) - 1) + 1):
                    unresolved.append({"caller": None, "site": f"{f}:{k + 1}:0",
                                       "why": "an assertion, compiled only with -gnata"})
            ln += 1
    # What GNAT did not compile: files no unit reads.
    read = set()
    for tu, nodes in nodes_of.items():
        read.add(tu)
        read.update(n["file"] for n in nodes.values() if n["file"])
    read.update(k.rsplit(":", 1)[0] for k in defs)
    unread = 0
    for f in files:
        if not f.endswith((".adb", ".ads")) or f in read:
            continue
        if f.endswith(".ads") and f[:-4] + ".adb" in read:
            continue
        if f.endswith(".adb") and f in ada and f not in failed and f not in units:
            continue  # a subunit: its parent's unit reads it
        unread += 1
        for ln, line in enumerate(src.code(f), 1):
            if re.search(r"\w", line):
                unresolved.append({"caller": None, "site": f"{f}:{ln}:0", "why": "in a file the build does not compile"})
    print(f"ref_ada: {len(units) - len(failed)} of {len(units)} units compiled, {len(defs)} defs, "
          f"{len(edges)} edges, {len(unresolved)} unresolved, {external} external; {unread} files no unit reads",
          file=sys.stderr)
    version = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    json.dump({"tool": f"GNAT (gcc {version}) -fcallgraph-info", "defs": defs, "edges": edges,
               "unresolved": unresolved, "skipped": dict(skipped), "external_sites": external,
               "not_compiled": failed}, sys.stdout)


if __name__ == "__main__":
    main()
