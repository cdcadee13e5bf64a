#!/usr/bin/env python3
"""Tables (markdown) from run.sh's scores: report.py OUT_DIR REPOS.tsv"""
import json
import os
import sys
from collections import Counter, defaultdict

out_dir, repos_tsv = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(repos_tsv) if l.strip() and not l.startswith("#")]


def f(x):
    return "—" if x is None else f"{x:.3f}"


def pr(c):
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
    return p, r


def cell(c):
    p, r = pr(c)
    return f"{f(p)} / {f(r)}"


scores = {}
for name, lang, repo, commit, folder, *_ in rows:
    s = {}
    for side in ("before", "after"):
        p = os.path.join(out_dir, name, f"score-{side}.json")
        if os.path.exists(p):
            s[side] = json.load(open(p))
    if len(s) == 2:
        scores[name] = (lang, s)

print("| repository | language | sampled | before callers P / R | before callees P / R | after callers P / R | after callees P / R | before all | after all | left out (after) |")
print("|---|---|---|---|---|---|---|---|---|---|")
per_lang = defaultdict(lambda: {side: {d: Counter() for d in ("callers", "callees", "all")} for side in ("before", "after")})
for name, (lang, s) in scores.items():
    for side in ("before", "after"):
        for d in ("callers", "callees", "all"):
            per_lang[lang][side][d].update({k: s[side][d][k] for k in ("tp", "fp", "fn")})
    lo = ", ".join(f"{k}: {v}" for k, v in sorted(s["after"]["left_out"].items()))
    nf = s['after']['not_found']
    print(f"| {name} | {lang} | {s['after']['sample']}{f' ({nf} no cc-server symbol)' if nf else ''} | {cell(s['before']['callers'])} | {cell(s['before']['callees'])} "
          f"| {cell(s['after']['callers'])} | {cell(s['after']['callees'])} | {cell(s['before']['all'])} | {cell(s['after']['all'])} | {lo} |")
print()
print("| language | before callers P / R | before callees P / R | after callers P / R | after callees P / R | before all | after all |")
print("|---|---|---|---|---|---|---|")
for lang, c in per_lang.items():
    b, a = c["before"], c["after"]
    print(f"| {lang} | {cell(b['callers'])} | {cell(b['callees'])} | {cell(a['callers'])} | {cell(a['callees'])} | {cell(b['all'])} | {cell(a['all'])} |")
print()
print("| language | misses (after) by what the export has at the site |")
print("|---|---|")
causes = defaultdict(Counter)
for name, (lang, s) in scores.items():
    causes[lang].update(s["after"].get("misses_by_cause", {}))
for lang, c in causes.items():
    print(f"| {lang} | " + "; ".join(f"{k}: {v}" for k, v in c.most_common() if v) + " |")
for table in ("per_kind", "per_rung"):
    print()
    agg = defaultdict(lambda: defaultdict(Counter))
    for name, (lang, s) in scores.items():
        for k, v in s["after"].get(table, {}).items():
            agg[k][lang].update(v)
            agg[k]["all"].update(v)
    langs = sorted({l for _, (l, _) in scores.items()})
    head = "kind" if table == "per_kind" else "rung"
    print(f"| {head} | " + " | ".join(f"{l}: precision (right / wrong, left out)" for l in langs + ["all"]) + " | mean of languages |")
    print("|---|" + "---|" * (len(langs) + 2))
    for k in sorted(agg, key=lambda k: -sum(agg[k]["all"].values())):
        cells = []
        for l in langs + ["all"]:
            c = agg[k][l]
            tp, fp, lo = c["tp"], c["fp"], c["left_out"]
            cells.append(f"{f(tp / (tp + fp)) if tp + fp else '—'} ({tp} / {fp}, {lo})")
        ps = [agg[k][l]["tp"] / (agg[k][l]["tp"] + agg[k][l]["fp"]) for l in langs if agg[k][l]["tp"] + agg[k][l]["fp"]]
        print(f"| {k} | " + " | ".join(cells) + f" | {f(sum(ps) / len(ps)) if ps else '—'} |")
