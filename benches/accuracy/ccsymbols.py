#!/usr/bin/env python3
"""Where each end of an exported edge is defined: id -> path, name, span, kind.

    ccsymbols.py EXPORT.jsonl REPO > symbols.json

Looks every qualified name of the export up with `symbol NAME --json` ($CC_BIN, $CC_DATA),
keeping the entries whose id the export names. Top levels (`<path>`) and externals need none.
"""
import json
import os
import subprocess
import sys

BIN, DATA, REPO = os.environ["CC_BIN"], os.environ["CC_DATA"], sys.argv[2]
want = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    for end in ("from", "to"):
        n = e[end + "_name"]
        if e.get("external") and end == "to":
            continue
        if n.startswith("<") and n.endswith(">"):
            continue
        want.setdefault(n, set()).add(e[end])
out = {}
for name, ids in sorted(want.items()):
    p = subprocess.run([BIN, "--data-dir", DATA, "-q", "symbol", name, "--json", "--repo", REPO,
                        "--limit", "10000"], capture_output=True, text=True)
    try:
        ms = json.loads(p.stdout) if p.returncode == 0 else []
    except json.JSONDecodeError:
        ms = []
    for m in ms:
        s = m["symbol"]
        i = s["id"] if isinstance(s["id"], str) else format(s["id"], "016x")
        if i in ids:
            out[i] = {"path": s["path"], "name": s["name"], "qualified_name": s["qualified_name"],
                      "kind": s["kind"], "span": s["span"]}
json.dump(out, sys.stdout)
