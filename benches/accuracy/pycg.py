#!/usr/bin/env python3
"""cc-server's Python call graph scored on PyCG's micro-benchmark (held out: never tuned on).

    pycg.py --bin CC_SERVER --snippets PYCG/micro-benchmark/snippets [--out misses.json]
            [--category NAME ...]

What it measures: precision and recall of the call edges cc-server states by default (facts:
kinds of the families `call`, `implicit` and `inherited`; not `reference` edges, not
`possible` ones) against the `callgraph.json` each PyCG test program comes with, per category
and overall, and how many programs have no missing edge and no extra edge. PyCG's code is not
kept here: fetch it yourself (github.com/vitsalis/PyCG) and point `--snippets` at its
`micro-benchmark/snippets` folder. Python 3.11, standard library only.

For each program folder (`<category>/<name>/`: `main.py`, sometimes more files, and
`callgraph.json`) its `.py` files are copied to a scratch folder, indexed
(`index --no-embed --quiet`), and the graph exported (`graph export --format jsonl`) with its
symbols (`symbol --path . --json`). cc-server's names are mapped to PyCG's:

- a module is its file's path relative to the program folder (`main.py` -> `main`,
  `pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py` -> `pkg`); a file's top level (`<path>` in
  cc-server) is the module's name itself, as in PyCG;
- a lambda is `<scope>.<lambdaN>`, N counting the lambdas of its scope (function, class or
  module) in source order, as PyCG numbers them. cc-server names an anonymous lambda
  `<scope>.<lambdaN>` too, and a lambda bound to a name (`sq = lambda x: …`) twice: the binding
  `main.sq` (the symbol calls reach) and the lambda under it; both map to the one PyCG lambda;
- a class's body: PyCG puts the calls made while a class body runs under the class's name
  (`main.A`); cc-server's caller for those is the class symbol, so it maps as it is;
- constructors: PyCG's edge for `A()` is to `main.A.__init__` when A (or a base, by the MRO)
  defines one, and none at all otherwise (object's `__init__` is a builtin). cc-server's
  constructor edge goes to the `__init__` it finds (inherited ones too) and to the class when
  there is none; an edge to a class is therefore left out (it is the builtin's call).

Scored edges are internal ones only: both ends within the program's own files. `<builtin>.*`
and names of other modules (the standard library, packages not in the folder) are dropped
from PyCG's edges, and external callees from cc-server's, and the counts of what was dropped
are printed. Expected edges cc-server misses are classed by what it has instead: only a
possible edge, only a reference edge, or nothing.
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


def module_of(rel):
    """`pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py` -> `pkg`."""
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def internal(name, modules):
    return any(name == m or name.startswith(m + ".") for m in modules)


def pycg_names(symbols, modules_by_path):
    """cc-server symbol id -> PyCG name."""
    by_q = {s["qualified_name"]: s for s in symbols}

    def is_binding(s):  # `sq = lambda x`: a name bound to a lambda
        return s is not None and re.match(r"^[\w.]+\s*=\s*lambda\b", s["signature"]) is not None

    def is_lambda(s):
        return s["signature"].startswith("lambda") and s["name"].startswith("<lambda")

    def parent(q):
        return q.rsplit(".", 1)[0] if "." in q else None

    names = {}
    memo = {}

    def name_of(q):
        if q in memo:
            return memo[q]
        s = by_q.get(q)
        if s is None:  # a module (or a name that is no symbol): as it is
            memo[q] = q
            return q
        if is_binding(s):
            inner = [t for t in symbols if parent(t["qualified_name"]) == q and is_lambda(t)]
            if inner:
                memo[q] = name_of(inner[0]["qualified_name"])
                return memo[q]
        memo[q] = q
        return q

    # Lambdas numbered per scope (bindings looked through), in source order.
    per_scope = defaultdict(list)
    for s in symbols:
        if not is_lambda(s):
            continue
        p = parent(s["qualified_name"])
        while p is not None and is_binding(by_q.get(p)):
            p = parent(p)
        per_scope[p].append(s)
    for p, ls in per_scope.items():
        ls.sort(key=lambda s: (s["span"]["start_line"], s["span"]["start_col"]))
        scope = name_of(p) if p is not None else ""
        for i, s in enumerate(ls, 1):
            memo[s["qualified_name"]] = f"{scope}.<lambda{i}>" if scope else f"<lambda{i}>"
    for s in symbols:
        names[s["id"]] = name_of(s["qualified_name"])
    return names


def score_program(bin_, folder, scratch):
    src = os.path.join(scratch, "src")
    data = os.path.join(scratch, "data")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(src)
    modules_by_path = {}
    for root, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), folder).replace(os.sep, "/")
                os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
                shutil.copy(os.path.join(root, f), os.path.join(src, rel))
                modules_by_path[rel] = module_of(rel)
    modules = set(modules_by_path.values())
    with open(os.path.join(folder, "callgraph.json")) as f:
        cg = json.load(f)
    expected, dropped_expected = set(), 0
    for caller, callees in cg.items():
        for callee in callees:
            if internal(caller, modules) and internal(callee, modules):
                expected.add((caller, callee))
            else:
                dropped_expected += 1

    export, symbols = index_program(bin_, src, data)
    kinds = {s["id"]: s["kind"] for s in symbols}
    names = pycg_names(symbols, modules_by_path)
    top = {"<" + p + ">": m for p, m in modules_by_path.items()}

    def end(e, side):
        n = e[side + "_name"]
        if n in top:
            return top[n]
        return names.get(e[side], n)

    facts, possible, references = set(), set(), set()
    dropped_got = 0
    to_class = 0
    for e in export:
        if e["external"]:
            dropped_got += 1
            continue
        if e["kind"] == "constructor" and kinds.get(e["to"]) == "class":
            to_class += 1  # the class has no __init__ of its own or inherited: object's runs
            continue
        a, b = end(e, "from"), end(e, "to")
        if not (internal(a, modules) and internal(b, modules)):
            dropped_got += 1
            continue
        if e["family"] == "reference":
            references.add((a, b))
        elif e["possible"]:
            possible.add((a, b))
        elif e["family"] in FACT_FAMILIES:
            facts.add((a, b))
    missed = expected - facts
    return {
        "expected": len(expected),
        "found": len(facts),
        "tp": len(expected & facts),
        "missed": sorted(f"{a} -> {b}" for a, b in missed),
        "extra": sorted(f"{a} -> {b}" for a, b in facts - expected),
        "missed_only_possible": sorted(f"{a} -> {b}" for a, b in missed & possible),
        "missed_only_reference": sorted(f"{a} -> {b}" for a, b in (missed - possible) & references),
        "dropped_expected": dropped_expected,
        "dropped_found": dropped_got,
        "constructor_to_class": to_class,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the cc-server binary")
    ap.add_argument("--snippets", required=True, help="a PyCG checkout's micro-benchmark/snippets")
    ap.add_argument("--out", help="write every missed and extra edge per program here (JSON)")
    ap.add_argument("--category", action="append", help="only these categories")
    a = ap.parse_args()
    programs = []
    for cat in sorted(os.listdir(a.snippets)):
        if a.category and cat not in a.category:
            continue
        d = os.path.join(a.snippets, cat)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if os.path.isfile(os.path.join(d, name, "callgraph.json")):
                programs.append((cat, name))
    scratch = tempfile.mkdtemp(prefix="cc-pycg-")
    results = {}
    try:
        for cat, name in programs:
            results[f"{cat}/{name}"] = score_program(a.bin, os.path.join(a.snippets, cat, name),
                                                     os.path.join(scratch, "p"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    cats = defaultdict(lambda: defaultdict(int))
    for key, r in results.items():
        for c in (key.split("/")[0], "overall"):
            s = cats[c]
            s["programs"] += 1
            s["expected"] += r["expected"]
            s["found"] += r["found"]
            s["tp"] += r["tp"]
            s["complete"] += not r["missed"]
            s["exact"] += not r["extra"]
            s["possible"] += len(r["missed_only_possible"])
            s["reference"] += len(r["missed_only_reference"])
            s["dropped_expected"] += r["dropped_expected"]
            s["dropped_found"] += r["dropped_found"]
            s["to_class"] += r["constructor_to_class"]
    print(f"{'category':<14} {'programs':>8} {'expected':>8} {'found':>6} {'precision':>9} {'recall':>6}"
          f" {'no miss':>7} {'no extra':>8} {'missed: possible':>16} {'reference':>9}")
    order = sorted(c for c in cats if c != "overall") + ["overall"]
    for c in order:
        s = cats[c]
        print(f"{c:<14} {s['programs']:>8} {s['expected']:>8} {s['found']:>6}"
              f" {ratio(s['tp'], s['found']):>9.3f} {ratio(s['tp'], s['expected']):>6.3f}"
              f" {s['complete']:>7} {s['exact']:>8} {s['possible']:>16} {s['reference']:>9}")
    o = cats["overall"]
    print(f"\nleft out: {o['dropped_expected']} of PyCG's edges (<builtin>.* or outside the program's files),"
          f" {o['dropped_found']} of cc-server's (external callees),"
          f" {o['to_class']} constructor edges to a class without __init__ (object's)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"categories": {c: dict(cats[c]) for c in order}, "programs": results}, f, indent=1,
                      sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
