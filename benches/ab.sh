#!/usr/bin/env bash
# Interleaved A/B of `cc-server index` variants on one repository.
#
#   benches/ab.sh [--runs N] REPO 'LABEL|ENV|BIN' 'LABEL|ENV|BIN' ...
#
# Each variant is a label, environment assignments (space-separated, may be empty) and a
# cc-server binary, e.g. 'base||/tmp/cc-base' 'new|CC_LOG=debug|target/release/cc-server'.
# The variants run in turn, N rounds (default 3), each into a fresh data directory
# (`index --no-embed --json`), so a host that speeds up or slows down during the run
# moves every variant alike: this machine's speed drifts by up to 2x within an hour, so
# compare only variants of one run. Each round rotates the order the variants run in.
# Prints, per variant, the medians of: the index phase (`seconds`), the graph phase
# (`graph.seconds`), CPU (user + sys), the whole command's wall time, the wall time
# outside the two phases, and peak RSS; then the index-phase times of every round; then,
# for each variant after the first, the median of its per-round index-phase ratio to the
# first and in how many rounds it was faster. Two runs of one binary differed by 5% in
# five rounds here: trust a difference only when it holds over many rounds.
# Needs /usr/bin/time and python3.
set -euo pipefail

runs=3
case "${1:-}" in -h|--help) sed -n '2,18p' "$0"; exit 0 ;; esac
if [ "${1:-}" = --runs ]; then runs=$2; shift 2; fi
[ $# -ge 2 ] || { echo "usage: $0 [--runs N] REPO 'LABEL|ENV|BIN' ..." >&2; exit 2; }
repo=$1; shift
[ -d "$repo" ] || { echo "$repo: not a directory" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found: apt-get install time" >&2; exit 1; }
for spec in "$@"; do
  IFS='|' read -r label _ bin <<< "$spec"
  [ -n "$label" ] && [ -x "$bin" ] || { echo "'$spec': want LABEL|ENV|BIN with an executable BIN" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
specs=("$@")
for round in $(seq "$runs"); do
  # Each round starts one variant later than the last (A B, B A, ...), so a variant
  # does not always run right after the same other one.
  order=()
  for i in "${!specs[@]}"; do order+=("${specs[(i + round - 1) % ${#specs[@]}]}"); done
  for spec in "${order[@]}"; do
    IFS='|' read -r label envs bin <<< "$spec"
    data=$(mktemp -d -p "$tmp")
    # shellcheck disable=SC2086 # ENV is a list of assignments
    env $envs /usr/bin/time -f "TIME %U %S %e %M" "$bin" --data-dir "$data" index --no-embed --json "$repo" \
      > "$tmp/out.json" 2> "$tmp/err" || { echo "$label failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    python3 - "$label" "$tmp/out.json" "$tmp/err" >> "$tmp/rows" <<'PY'
import json, sys
label, out, err = sys.argv[1:]
j = json.load(open(out))
t = open(err).read().rsplit("TIME ", 1)[1].split()
index, graph, wall = j["seconds"], j["graph"]["seconds"], float(t[2])
print(label, index, graph, float(t[0]) + float(t[1]), wall, wall - index - graph, int(t[3]) / 1024)
PY
    rm -rf "$data"
  done
done
python3 - "$tmp/rows" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, *v = line.split()
    rows[label].append([float(x) for x in v])
print(f"{'variant':12} {'index_s':>8} {'graph_s':>8} {'cpu_s':>7} {'wall_s':>7} {'outside':>8} {'rss_MB':>7}  index_s per round")
for label, v in rows.items():
    med = [statistics.median(r[i] for r in v) for i in range(6)]
    print(f"{label:12} {med[0]:8.2f} {med[1]:8.2f} {med[2]:7.2f} {med[3]:7.2f} {med[4]:8.3f} {med[5]:7.0f}  "
          + " ".join(f"{r[0]:.2f}" for r in v))
labels = list(rows)
for label in labels[1:]:
    pairs = list(zip(rows[labels[0]], rows[label]))
    ratios = [b[0] / a[0] for a, b in pairs]
    faster = sum(r < 1 for r in ratios)
    print(f"{label} / {labels[0]}: index_s ratio per round, median {statistics.median(ratios):.3f}; "
          f"faster in {faster} of {len(ratios)} rounds")
PY
