#!/usr/bin/env python3
"""Deterministic sample of a reference's functions and methods.

    sample.py REF.json SEED N > sample.txt

Functions and methods defined in the repository (not inside a lambda, not made by a macro
or a derive), sorted by key
(path:line), then N of them drawn by random.Random(SEED); all of them when there are fewer.
"""
import json
import random
import sys

ref = json.load(open(sys.argv[1]))
seed, n = int(sys.argv[2]), int(sys.argv[3])
keys = sorted(k for k, d in ref["defs"].items() if d["kind"] == "function"
              and not d.get("in_lambda") and not d.get("generated"))
pick = keys if len(keys) <= n else sorted(random.Random(seed).sample(keys, n))
print("\n".join(pick))
