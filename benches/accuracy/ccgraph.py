"""What the held-out call-graph scorers (`pycg.py`, `jcg.py`) share: running cc-server on a
folder of a small program and reading back its call graph and symbols."""
import json
import subprocess


def run(cmd, ok=(0,)):
    """`cmd`'s standard output; exit 2 is an empty JSON list where `ok` allows it (`symbol
    --path .` of a program without definitions)."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2 and 2 in ok:
        return "[]"
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[:500]}")
    return p.stdout


def index_program(bin_, src, data):
    """Indexes `src` as repository `p` into `data`; its exported edges (`graph export
    --format jsonl`) and its symbols (`symbol --path . --json`)."""
    run([bin_, "--data-dir", data, "index", src, "--name", "p", "--no-embed", "--quiet"])
    export = [json.loads(line) for line in run(
        [bin_, "--data-dir", data, "graph", "export", "--repo", "p", "--format", "jsonl"]).splitlines() if line]
    symbols = [m["symbol"] for m in json.loads(
        run([bin_, "--data-dir", data, "-q", "symbol", "--path", ".", "--repo", "p", "--json",
             "--limit", "10000"], ok=(0, 2)))]
    return export, symbols


def ratio(a, b):
    return a / b if b else 1.0
