#!/usr/bin/env python3
"""cc-server's JavaScript, Python and Java call graphs scored on JCG's test cases (held out).

    jcg.py --bin CC_SERVER --cases JCG/jcg_testcases/src/main/resources --lang js|python|java
           [--out misses.json] [--category NAME ...]

JCG (github.com/opalj/JCG, the "Java Call Graph" suite, which now has JavaScript and Python
cases too) is a set of Markdown files, one per feature category; each `## ID` section is a
small program (one or more files, each a fenced block whose first line `// dir/File.ext`
names it; that line is not part of the file, so line 1 is the line after it) with the edges a
sound call graph must have. JCG's code is not kept here: fetch it yourself and point `--cases`
at its `jcg_testcases/src/main/resources` folder. Python 3.11, standard library only.

What is scored: cc-server's default facts (edge families `call`, `implicit`, `inherited`; not
`reference` edges, not `possible` ones), internal edges only.

JavaScript (`js/*.md`, 62 programs) and Python (`python/*.md`, 64 programs; the first line
of a file's block is `# dir/File.py`): each program's JSON block lists `directLinks` (caller,
callee) and `indirectLinks` (a callee some caller must reach). Names are JCG's: `<global>` for
a file's top level, `File.name` or `File.name:LINE` (the line of the definition; without a line
only the name is compared, as JCG's own matcher does; its operator-overloading cases write
`File.Class.name`), `File.<anonymous:LINE>` for a function
without a name, `File` the file's name without its extension. `Native.*` callees (built-ins)
are left out and counted. cc-server's symbols are named the same way: a symbol with a name is
`File.name:LINE`, one whose name is empty or `<anonymous…>`/`<lambda…>` is
`File.<anonymous:LINE>`, a file's top level is `<global>`.

Java (`java/*.md`): the annotations `@DirectCall(name, line, resolvedTargets,
prohibitedTargets)` and `@IndirectCall(…)` on a method (also inside `@DirectCalls({…})`) say
that the method calls, at that line, a method `name` of each class of `resolvedTargets`
(`Lpkg/Class;`). Each (annotated method, target class, name) is an expected edge; it is found
when cc-server has a fact edge from that method (the innermost cc-server symbol whose span
holds the annotated line) to a method or constructor `name` (`<init>` is the constructor) of
that class, at any site (an indirect call's site is often another line: the lambda or the
method reference that makes the call happen). Internal edges only: a target class the
program does not define (`Ljava/io/ObjectOutputStream;`) is left out and counted.

Precision (JCG lists the edges it tests, not whole call graphs, so an edge it does not list is
not wrong by itself): JavaScript, an edge is wrong when its callee is one of the program's
tested callees and JCG does not list it for that caller (`foo(bar)` counted as "top level
calls bar"); Java, an edge from an annotated method at an annotated line to a method of the
annotation's `name` in a class not among its `resolvedTargets` is wrong.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict

from ccgraph import index_program, ratio

FACT_FAMILIES = {"call", "implicit", "inherited"}
ANON = re.compile(r"^(|<anonymous.*>|<lambda.*>|<arrow.*>|<function.*>)$")


def programs_of(md, fence):
    """(id, files {path: text}, expected JSON or None) of each `## ID` section of a JCG file."""
    out = []
    for sec in re.split(r"(?m)^## ", md)[1:]:
        pid = sec.split("\n", 1)[0].strip()
        files = {}
        for m in re.finditer(r"(?s)```" + fence + r"\n(?://|#) ?([^\n]+)\n(.*?)```", sec):
            files[m.group(1).strip()] = m.group(2)
        j = re.search(r"(?s)```json\n(.*?)```", sec)
        # (One case has a trailing comma in its list, which JCG's own reader accepts.)
        expected = json.loads(re.sub(r",(\s*[]}])", r"\1", j.group(1))) if j else None
        out.append((pid, files, expected))
    return out


def index(bin_, scratch, files):
    src = os.path.join(scratch, "src")
    data = os.path.join(scratch, "data")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(src)
    for rel, text in files.items():
        p = os.path.join(src, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return index_program(bin_, src, data)


def facts_of(export):
    """cc-server's default facts, internal ones: (from id, to id, sites) with `from_name`."""
    for e in export:
        if e["external"] or e["family"] == "reference" or e["possible"] or e["family"] not in FACT_FAMILIES:
            continue
        yield e


# --- JavaScript ---------------------------------------------------------------------------

def jcg_names(s):
    """A symbol's names as JCG may write them: `File.name:LINE` (JCG's usual form, a method
    without its class), `File.Class.name:LINE` (its operator-overloading cases), or
    `File.<anonymous:LINE>`."""
    path = s["path"]
    base = os.path.basename(path).split(".")[0]
    line = s["span"]["start_line"]
    if ANON.match(s["name"]):
        return (f"{base}.<anonymous:{line}>",)
    module = path.rsplit(".", 1)[0].replace("/", ".")
    q = s["qualified_name"]
    q = q[len(module) + 1:] if q.startswith(module + ".") else q
    names = (f"{base}.{s['name']}:{line}",)
    return names + ((f"{base}.{q}:{line}",) if q != s["name"] else ())


def name_matches(want, got):
    """Whether one of `got`'s names is `want` (a name without a line: by name, as JCG's own
    matcher compares)."""
    bare = ":" not in want.rsplit(".", 1)[-1].replace("<anonymous:", "")
    return any(g == want or (bare and g.split(":")[0] == want) for g in got)


def score_links(bin_, pid, files, expected, scratch):
    direct = [(a, b) for a, b in expected.get("directLinks", [])]
    indirect = list(expected.get("indirectLinks", []))
    dropped = sum(1 for a, b in direct if b.startswith("Native.") or a.startswith("Native."))
    dropped += sum(1 for b in indirect if b.startswith("Native."))
    direct = [(a, b) for a, b in direct if not (b.startswith("Native.") or a.startswith("Native."))]
    indirect = [b for b in indirect if not b.startswith("Native.")]
    export, symbols = index(bin_, scratch, files)
    names = {s["id"]: jcg_names(s) for s in symbols}

    def end(e, side):
        n = e[side + "_name"]
        if n.startswith("<") and n.endswith(">") and ("/" in n or "." in n):
            return ("<global>",)  # a file's top level
        return names.get(e[side], (n,))

    got = {(end(e, "from"), end(e, "to")) for e in facts_of(export)}
    all_edges = {(end(e, "from"), end(e, "to"), e["family"], e["possible"]) for e in export if not e["external"]}
    missed, found = [], 0
    for a, b in direct:
        if any(name_matches(a, x) and name_matches(b, y) for x, y in got):
            found += 1
        else:
            missed.append(f"{a} -> {b}")
    for b in indirect:
        if any(name_matches(b, y) for _, y in got):
            found += 1
        else:
            missed.append(f"* -> {b}")
    tested = [b for _, b in direct] + indirect
    wrong = []
    for x, y in sorted(got):
        if not any(name_matches(b, y) for b in tested):
            continue
        if any(name_matches(b, y) for b in indirect):
            continue
        if not any(name_matches(a, x) and name_matches(b, y) for a, b in direct):
            wrong.append(f"{x[0]} -> {y[0]}")
    otherwise = {}
    for m in missed:
        a, b = m.split(" -> ")
        kinds = sorted({f"{fam}{' possible' if p else ''}" for x, y, fam, p in all_edges
                        if name_matches(b, y) and (a == "*" or name_matches(a, x))} - {"call", "implicit", "inherited"})
        otherwise[m] = kinds
    return {
        "expected": len(direct) + len(indirect),
        "tp": found,
        "wrong": wrong,
        "missed": missed,
        "missed_has": otherwise,
        "dropped_expected": dropped,
    }


# --- Java ---------------------------------------------------------------------------------

ANNOTATION = re.compile(r"@(DirectCall|IndirectCall)\s*\(")


def java_annotations(text):
    """(kind, name, line, [target classes], [prohibited], annotation's line) of each annotation."""
    out = []
    for m in ANNOTATION.finditer(text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        name = re.search(r'\bname\s*=\s*"([^"]*)"', body)
        line = re.search(r"\bline\s*=\s*(\d+)", body)

        def classes(key):
            k = re.search(key + r"\s*=\s*(\{[^}]*\}|\"[^\"]*\")", body)
            return re.findall(r'"L([^";]+);"', k.group(1)) if k else []
        if name and line:
            out.append((m.group(1), name.group(1), int(line.group(1)), classes(r"\bresolvedTargets"),
                        classes(r"\bprohibitedTargets"), text.count("\n", 0, m.start()) + 1))
    return out


def score_java(bin_, pid, files, scratch):
    export, symbols = index(bin_, scratch, files)
    by_id = {s["id"]: s for s in symbols}
    # Each symbol's class as JCG names it: the package (from the file's `package` line) and
    # the enclosing classes, `$`-joined.
    pkg_of = {}
    for rel, text in files.items():
        m = re.search(r"(?m)^\s*package\s+([\w.]+)\s*;", text)
        pkg_of[rel] = m.group(1).replace(".", "/") if m else ""
    type_kinds = {"class", "interface", "enum", "struct", "trait"}

    def owner(s):
        """The JCG class of a method, constructor or type symbol."""
        chain = []
        cur = s if s["kind"] in type_kinds else by_q.get(s["qualified_name"].rsplit(".", 1)[0])
        while cur is not None and cur["kind"] in type_kinds:
            chain.append(cur["name"])
            q = cur["qualified_name"]
            cur = by_q.get(q.rsplit(".", 1)[0]) if "." in q else None
        pkg = next((p for r, p in pkg_of.items() if s["path"].endswith(r)), "")
        cls = "$".join(reversed(chain))
        return f"{pkg}/{cls}" if pkg else cls

    by_q = {s["qualified_name"]: s for s in symbols}
    # Internal edges only: a target class the program does not define (the JDK's) is left
    # out, and counted.
    defined = {owner(s) for s in symbols if s["kind"] in type_kinds}
    outside = 0
    # The callers: the innermost symbol of the annotated file whose span holds the annotation's
    # line (the method it annotates, whose span starts at the annotation or just below it).
    expected = []  # (caller id, target class, name, kind)
    sites = defaultdict(list)  # (caller id, line) -> [(name, targets, prohibited)]
    nothing = []
    for rel, text in files.items():
        fsyms = [s for s in symbols if s["path"].endswith(rel)]
        for kind, name, line, targets, prohibited, at in java_annotations(text):
            holders = [s for s in fsyms if s["kind"] in ("method", "function", "constructor")
                       and s["span"]["start_line"] <= line <= s["span"]["end_line"]]
            if not holders:
                nothing.append(f"{rel}:{line} {name}")
                continue
            caller = max(holders, key=lambda s: s["span"]["start_line"])
            for t in targets:
                if t in defined:
                    expected.append((caller["id"], t, name, kind))
                else:
                    outside += 1
            sites[(caller["id"], line)].append((name, set(targets), set(prohibited)))

    def target_key(s):
        n = "<init>" if s["kind"] == "constructor" or (s["kind"] in type_kinds) else s["name"]
        if s["kind"] == "method" and s["name"] == by_q.get(s["qualified_name"].rsplit(".", 1)[0], {}).get("name"):
            n = "<init>"
        return owner(s), n

    facts = list(facts_of(export))
    got = defaultdict(set)  # caller id -> {(class, name)}
    for e in facts:
        t = by_id.get(e["to"])
        if t is not None:
            got[e["from"]].add(target_key(t))
    found, missed = 0, []
    by_kind = defaultdict(lambda: [0, 0])
    for caller, cls, name, kind in expected:
        ok = (cls, name) in got[caller]
        found += ok
        by_kind[kind][0] += 1
        by_kind[kind][1] += ok
        if not ok:
            missed.append(f"{by_id[caller]['qualified_name']} -> {cls}.{name} ({kind})")
    wrong, judged, bodiless = [], 0, set()
    for e in facts:
        t = by_id.get(e["to"])
        if t is None:
            continue
        cls, name = target_key(t)
        for (caller, line), anns in sites.items():
            if e["from"] != caller or e["line"] != line:
                continue
            for aname, targets, prohibited in anns:
                if aname != name:
                    continue
                judged += 1
                if cls not in targets:
                    wrong.append(f"{by_id[caller]['qualified_name']}:{line} -> {cls}.{name}")
                    # The static target of an interface call when the method has no body
                    # (javac's target; it never runs): counted apart below.
                    if t["signature"].rstrip().endswith(";"):
                        bodiless.add(f"{by_id[caller]['qualified_name']}:{line} -> {cls}.{name}")
    return {
        "expected": len(expected),
        "tp": found,
        "judged": judged,
        "wrong": sorted(set(wrong)),
        "wrong_bodiless": sorted(bodiless),
        "missed": missed,
        "by_kind": dict(by_kind),
        "unplaced": nothing,
        "outside": outside,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the cc-server binary")
    ap.add_argument("--cases", required=True, help="a JCG checkout's jcg_testcases/src/main/resources")
    ap.add_argument("--lang", choices=["js", "python", "java"], required=True)
    ap.add_argument("--out", help="write every missed and wrong edge per program here (JSON)")
    ap.add_argument("--category", action="append", help="only these categories (file names without .md)")
    a = ap.parse_args()
    folder = os.path.join(a.cases, a.lang)
    fence = a.lang  # the code blocks' language tag
    scratch = tempfile.mkdtemp(prefix="cc-jcg-")
    results = {}
    try:
        for md in sorted(os.listdir(folder)):
            cat = md[:-3]
            if not md.endswith(".md") or (a.category and cat not in a.category):
                continue
            with open(os.path.join(folder, md)) as f:
                text = f.read()
            for pid, files, expected in programs_of(text, fence):
                if not files:
                    continue
                where = os.path.join(scratch, "p")
                if a.lang != "java":
                    if expected is None:
                        continue
                    results[f"{cat}/{pid}"] = score_links(a.bin, pid, files, expected, where)
                else:
                    r = score_java(a.bin, pid, files, where)
                    if r["expected"] or r["outside"]:
                        results[f"{cat}/{pid}"] = r
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    cats = defaultdict(lambda: defaultdict(int))
    for key, r in results.items():
        for c in (key.split("/")[0], "overall"):
            s = cats[c]
            s["programs"] += 1
            s["expected"] += r["expected"]
            s["tp"] += r["tp"]
            s["wrong"] += len(r["wrong"])
            s["complete"] += not r["missed"]
            s["exact"] += not r["wrong"]
    print(f"{'category':<28} {'programs':>8} {'expected':>8} {'found':>6} {'wrong':>6} {'precision':>9}"
          f" {'recall':>6} {'no miss':>7} {'no wrong':>8}")
    order = sorted(c for c in cats if c != "overall") + ["overall"]
    for c in order:
        s = cats[c]
        print(f"{c:<28} {s['programs']:>8} {s['expected']:>8} {s['tp']:>6} {s['wrong']:>6}"
              f" {ratio(s['tp'], s['tp'] + s['wrong']):>9.3f} {ratio(s['tp'], s['expected']):>6.3f}"
              f" {s['complete']:>7} {s['exact']:>8}")
    if a.lang != "java":
        dropped = sum(r["dropped_expected"] for r in results.values())
        print(f"\nleft out: {dropped} of JCG's edges to or from built-ins (Native.*)")
    else:
        kinds = defaultdict(lambda: [0, 0])
        for r in results.values():
            for k, (n, ok) in r["by_kind"].items():
                kinds[k][0] += n
                kinds[k][1] += ok
        print("\n" + ", ".join(f"{k}: {ok} of {n}" for k, (n, ok) in sorted(kinds.items())))
        bodiless = sum(len(r["wrong_bodiless"]) for r in results.values())
        print(f"of the wrong edges, {bodiless} go to a method without a body: the static target of a call on an"
              " interface type (javac's), which never runs itself")
        outside = sum(r["outside"] for r in results.values())
        print(f"left out: {outside} expected edges to classes the program does not define (the JDK's)")
        unplaced = [u for r in results.values() for u in r["unplaced"]]
        if unplaced:
            print(f"annotations no cc-server method holds: {len(unplaced)}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"categories": {c: dict(cats[c]) for c in order}, "programs": results}, f, indent=1,
                      sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
