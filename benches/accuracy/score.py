#!/usr/bin/env python3
"""Precision and recall of cc-server's callers and callees against a reference.

    score.py REF.json SAMPLE.txt ANSWERS.json [EXPORT.jsonl SYMBOLS.json] > score.json

Callers and callees of each sampled symbol, internal edges only, as sets of symbols.
Symbols are matched by path + name + the reference def's line inside cc-server's span.
A class and its constructor are one node; a class without a constructor of its own in the
repository stands for its nearest base's (what runs when it is called).
Left out of the score, with a count: cc-server edges to lambdas (the references have no
symbol for them), edges to or from a Rust macro (rustc expands them: its calls are the
expanding function's), cc-server edges whose every site is a call the reference could not
resolve (or that sits in a lambda), and implicit calls the references do not model
(iteration, context managers, property reads, operators: kinds known from the export).
With an export, precision per edge kind and per rung over every edge of the repository
whose caller the reference knows.
"""
import json
import sys
from collections import Counter, defaultdict

ref = json.load(open(sys.argv[1]))
sample = [l.strip() for l in open(sys.argv[2]) if l.strip()]
ans = json.load(open(sys.argv[3]))
export = sys.argv[4] if len(sys.argv) > 4 else None
symbols = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else {}
defs = ref["defs"]
UNMODELLED = {"iteration", "context", "property", "operator"}

by_path = defaultdict(list)
for k, d in defs.items():
    by_path[d["path"]].append((d["line"], d["name"], k))
has_ctor = {d["class"] for d in defs.values() if d.get("ctor") and d.get("class")}
has_classes = any(d["kind"] == "class" for d in defs.values())  # (rustc's MIR has none)


def eff(c, seen=()):
    """The class whose constructor runs when `c` is called."""
    if c in has_ctor or c in seen:
        return c
    for b in defs.get(c, {}).get("bases", []):
        r = eff(b, seen + (c,))
        if r in has_ctor:
            return r
    return c


def norm(k):
    d = defs.get(k)
    if d is None:
        return k
    if d.get("ctor") and d.get("class"):
        k, d = d["class"], defs[d["class"]]
    return eff(k) if d["kind"] == "class" else k


TYPES = {"class", "struct", "interface", "enum", "trait"}
CALLABLE = {"function", "method", "constructor", "module"} | TYPES


def map_sym(path, name, qname, span, kind=None):
    if qname and qname.startswith("<") and qname.endswith(">"):
        return qname
    if name and name.startswith("<lambda"):
        return "LAMBDA"
    if kind == "macro":
        return "MACRO"
    if kind and kind not in CALLABLE:
        # a field, constant or variable whose initialiser calls: the references give such a
        # call to the def around it (the class for a field, the top level for a module's)
        best = None
        for line, n, k in by_path.get(path, []):
            if line <= span["start_line"] <= defs[k]["end"] and (best is None or line > best[0]):
                best = (line, k)
        return best[1] if best else f"<{path}>"
    best = None
    want_class = kind in TYPES if kind else None
    for line, n, k in by_path.get(path, []):
        if want_class is not None and want_class != (defs[k]["kind"] == "class"):
            continue  # a Java class and its constructors share a name and a span
        if n == name and span["start_line"] <= line <= span["end_line"]:
            if best is None or line > best[0]:
                best = (line, k)
    return best[1] if best else f"UNMATCHED:{qname}"


def map_hit(h):
    n = h.get("name") or ""
    if h["span"] is None and n.startswith("<top level of ") and n.endswith(">"):
        return "<" + n[len("<top level of "):]  # main's name for a file's top level
    return map_sym(h["path"], h["sym_name"], h["qualified_name"], h["span"], h.get("kind"))


ref_edges = defaultdict(set)  # (caller, norm callee) -> sites
for e in ref["edges"]:
    ref_edges[(e["caller"], norm(e["callee"]))].add(e["site"].rsplit(":", 1)[0])
unres_lines = defaultdict(list)
for u in ref["unresolved"]:
    unres_lines[u["site"].rsplit(":", 1)[0]].append(u["why"])

# kinds per (from id, to id) and per site line, from the export
pair_kinds = defaultdict(set)
exp_edges = []
site_candidates = Counter()
if export:
    for line in open(export):
        e = json.loads(line)
        exp_edges.append(e)
        pair_kinds[(e["from"], e["to"])].add(e["kind"])
        if e.get("possible"):
            site_candidates[(e["from"], e["path"], e["line"], e.get("column"))] += 1


def unknown_sites(sites):
    return bool(sites) and all(s in unres_lines for s in sites)


tot = {d: Counter() for d in ("callers", "callees")}
left_out = Counter()
fps, fns = [], []
missing = 0
nf_edges = 0
for key in sample:
    a = ans.get(key) or {}
    d = defs[key]
    me = norm(key) if d.get("ctor") else key
    if not a.get("found"):
        # no cc-server symbol for it (an object literal's method, ...): all its edges missed
        missing += 1
        tot["callees"]["fn"] += len({c for (f, c) in ref_edges if f == key})
        tot["callers"]["fn"] += len({f for (f, c) in ref_edges if c == me})
        nf_edges += len({c for (f, c) in ref_edges if f == key}) + len({f for (f, c) in ref_edges if c == me})
        continue
    ids = {a["id"], a.get("class_id"), *a.get("other_ctor_ids", [])}
    r_callees = {c for (f, c) in ref_edges if f == key}
    r_callers = {f for (f, c) in ref_edges if c == me}
    for direction, rset in (("callees", r_callees), ("callers", r_callers)):
        hs = a.get(direction)
        if hs is None:
            continue
        got = {}
        for h in hs:
            if h["external"]:
                continue
            t = map_hit(h)
            if direction == "callees":
                t = norm(t)
            kinds = set()
            for i in ids:
                if i:
                    pk = (i, h["id"]) if direction == "callees" else (h["id"], i)
                    kinds |= pair_kinds.get(pk, set())
            g = got.setdefault(t, {"sites": set(), "kinds": set(), "name": h["qualified_name"]})
            g["sites"] |= set(h["sites"])
            g["kinds"] |= kinds
        for t, g in got.items():
            if t in rset:
                tot[direction]["tp"] += 1
                continue
            if t == "LAMBDA":
                left_out["edge to a lambda"] += 1
            elif t == "MACRO":
                left_out["edge to or from a macro (the reference expands them)"] += 1
            elif t.startswith("UNMATCHED:") and g["kinds"] == {"constructor"} and not has_classes:
                # `Byte(x)`: a Rust tuple struct or variant built; no function runs
                left_out["constructor of a type the reference has no node for"] += 1
            elif g["kinds"] and g["kinds"] <= UNMODELLED:
                left_out["implicit call the reference does not model"] += 1
            elif unknown_sites(g["sites"]):
                left_out["site the reference cannot resolve"] += 1
            else:
                tot[direction]["fp"] += 1
                fps.append({"symbol": a["qualified_name"], "direction": direction, "other": g["name"],
                            "kinds": sorted(g["kinds"]), "sites": sorted(g["sites"])[:3]})
        for t in rset:
            if t not in got:
                tot[direction]["fn"] += 1
                site = sorted(ref_edges[(key, t)] if direction == "callees" else ref_edges[(t, me)])
                fns.append({"symbol": a["qualified_name"], "key": me if direction == "callers" else key,
                            "direction": direction, "other": t, "sites": site})


def pr(c):
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
    return {"tp": c["tp"], "fp": c["fp"], "fn": c["fn"], "precision": p, "recall": r}


both = tot["callers"] + tot["callees"]
out = {"sample": len(sample), "not_found": missing, "callers": pr(tot["callers"]),
       "callees": pr(tot["callees"]), "all": pr(both), "left_out": dict(left_out),
       "false_edges": fps, "misses": fns}

# per kind and per rung, over every exported edge whose caller the reference knows
if export and symbols:
    per = {"kind": defaultdict(Counter), "rung": defaultdict(Counter)}
    seen = set()
    rung_fps = []
    known_callers = set(defs) | {f"<{p}>" for p in by_path}
    for e in exp_edges:
        if e.get("external") or e["kind"] == "reference":
            continue  # not calls: the rung table is over what callers/callees walk
        f, t = symbols.get(e["from"]), symbols.get(e["to"])
        fk = e["from_name"] if e["from_name"].startswith("<") else (
            map_sym(f["path"], f["name"], f["qualified_name"], f["span"], f["kind"]) if f else None)
        if t is None or fk is None or (fk not in known_callers and fk != "MACRO"):
            continue
        tk = norm(map_sym(t["path"], t["name"], t["qualified_name"], t["span"], t["kind"]))
        rung = e["rung"]
        if e.get("possible"):
            # bucketed by the number of candidates of their call site
            k = site_candidates[(e["from"], e["path"], e["line"], e.get("column"))]
            rung += f" (possible, {k if k < 4 else '4+'} candidates)"
        ident = (fk, tk, e["kind"], rung)
        if ident in seen:
            continue
        seen.add(ident)
        site = f'{e["path"]}:{e["line"]}'
        if tk in ("LAMBDA", "MACRO") or fk == "MACRO":
            verdict = "left_out"
        elif tk.startswith("UNMATCHED:") and e["kind"] == "constructor" and not has_classes:
            verdict = "left_out"
        elif (fk, tk) in ref_edges:
            verdict = "tp"
        elif e["kind"] in UNMODELLED:
            verdict = "left_out"
        elif site in unres_lines:
            verdict = "left_out"
        else:
            verdict = "fp"
        if verdict == "fp":
            rung_fps.append((rung, e["kind"], e["from_name"], e["to_name"], site))
        per["kind"][e["kind"] + (" (possible)" if e.get("possible") else "")][verdict] += 1
        per["rung"][rung][verdict] += 1
    # what the export has at the site of each miss
    key_ids = defaultdict(set)
    for i, sy in symbols.items():
        key_ids[map_sym(sy["path"], sy["name"], sy["qualified_name"], sy["span"], sy["kind"])].add(i)
    at_site = defaultdict(list)
    for e in exp_edges:
        at_site[(e["from"], f'{e["path"]}:{e["line"]}')].append(e)
    why = Counter()
    for m in fns:
        caller, callee = (m["key"], m["other"]) if m["direction"] == "callees" else (m["other"], m["key"])
        ids = key_ids.get(caller, set()) | ({caller} if caller.startswith("<") else set())
        es = [e for i in ids for st in m["sites"] for e in at_site.get((i, st), [])]
        if caller.startswith("<"):
            es = [e for st in m["sites"] for (f, s2), l in at_site.items() if s2 == st for e in l
                  if e["from_name"] == caller]
        def hits_callee(e):
            t = symbols.get(e["to"])
            return t is not None and norm(map_sym(t["path"], t["name"], t["qualified_name"], t["span"], t["kind"])) == callee
        if not ids and not caller.startswith("<"):
            c = "caller is no cc-server symbol"
        elif any(hits_callee(e) and e.get("possible") for e in es):
            c = "only a possible edge (candidates of an unknown receiver or overloads)"
        elif any(hits_callee(e) and e["kind"] == "reference" for e in es):
            c = "only a reference edge"
        elif any(not e.get("possible") and not e.get("external") and e["kind"] != "reference" for e in es):
            c = "an edge to another symbol"
        elif any(e.get("external") for e in es):
            c = "left external"
        else:
            c = "no edge at the site"
        m["why"] = c
        why[c] += 1
    if nf_edges:
        why["the sampled symbol is no cc-server symbol"] += nf_edges
    out["misses_by_cause"] = dict(why.most_common())
    out["per_kind"] = {k: dict(v) for k, v in per["kind"].items()}
    out["per_rung"] = {k: dict(v) for k, v in per["rung"].items()}
    out["rung_false_edges"] = rung_fps
json.dump(out, sys.stdout, indent=1)
