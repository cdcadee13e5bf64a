#!/usr/bin/env python3
"""Ask one cc-server build for the callers and callees (depth 1, default flags) of each
sampled symbol, through its CLI, the same way for every build compared.

    ccquery.py REF.json SAMPLE.txt REPO > answers.json

The binary and data dir come from $CC_BIN and $CC_DATA. A sampled key is "path:line" of a
reference def; its cc-server symbol is the innermost symbol of that name and path whose span
holds the line. A sampled `__init__`/constructor also asks for its class (a class called is
its constructor called) and for the class's other constructors (overloads), and the answers
are merged.
"""
import json
import os
import subprocess
import sys

BIN = os.environ["CC_BIN"]
DATA = os.environ["CC_DATA"]
ref = json.load(open(sys.argv[1]))
sample = [l.strip() for l in open(sys.argv[2]) if l.strip()]
REPO = sys.argv[3]


def cli(*args):
    p = subprocess.run([BIN, "--data-dir", DATA, "-q", *args, "--json", "--repo", REPO],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        return None


_lookups = {}


def lookup(name):
    if name not in _lookups:
        _lookups[name] = cli("symbol", name, "--limit", "10000") or []
    return _lookups[name]


def sym_id(s):
    i = s["id"]
    return i if isinstance(i, str) else format(i, "016x")


def find(d):
    best = None
    for m in lookup(d["name"]):
        s = m["symbol"]
        sp = s["span"]
        if s["path"] != d["path"] or not (sp["start_line"] <= d["line"] <= sp["end_line"]):
            continue
        if (s["kind"] in ("class", "struct", "interface", "enum", "trait")) != (d["kind"] == "class"):
            continue  # a Java class and its constructors share a name
        if best is None or sp["start_line"] >= best["span"]["start_line"]:
            best = s
    return best


def hits(direction, s):
    out = cli(direction, sym_id(s), "--depth", "1", "--limit", "100000")
    if out is None:
        return None
    res = []
    for h in out.get("results", []):
        if h.get("distance", 1) != 1:
            continue
        sy = h.get("symbol") or {}
        res.append({
            "name": h.get("name"),
            "external": bool(h.get("external")),
            "ambiguous": bool(h.get("ambiguous")),
            "confidence": h.get("confidence"),
            "sites": h.get("sites", []),
            "id": sym_id(sy) if sy else None,
            "path": sy.get("path"),
            "sym_name": sy.get("name"),
            "qualified_name": sy.get("qualified_name"),
            "kind": sy.get("kind"),
            # The walk's symbol gives line / end_line (a graph symbol's span before).
            "span": sy.get("span") or ({"start_line": sy["line"], "end_line": sy["end_line"]} if "line" in sy else None),
        })
    return res


answers = {}
for key in sample:
    d = ref["defs"][key]
    s = find(d)
    if s is None:
        answers[key] = {"found": False}
        continue
    a = {"found": True, "id": sym_id(s), "qualified_name": s["qualified_name"],
         "callers": hits("callers", s), "callees": hits("callees", s)}
    cls = ref["defs"].get(d.get("class") or "")
    if d.get("ctor") and cls:
        c = find(cls)
        if c is not None:
            a["class_id"] = sym_id(c)
            a["callers"] = (a["callers"] or []) + (hits("callers", c) or [])
        # the class's other constructors (Java overloads): the reference merges them too
        for k2, d2 in sorted(ref["defs"].items()):
            if k2 != key and d2.get("ctor") and d2.get("class") == d["class"]:
                o = find(d2)
                if o is not None and sym_id(o) != a["id"]:
                    a.setdefault("other_ctor_ids", []).append(sym_id(o))
                    a["callers"] = (a["callers"] or []) + (hits("callers", o) or [])
    answers[key] = a
json.dump(answers, sys.stdout)
