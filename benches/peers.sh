#!/usr/bin/env bash
# Peer comparison: `cc-server index` side by side, in one run, with pure tree-sitter
# parsing of exactly the same files, parse + tags query, and universal-ctags; plus the
# call graph's build time, memory and query latencies.
#
#   benches/peers.sh [--runs N] [--out DIR] [--samples N] [--no-build] REPO_DIR...
#
# Per repository and per run (runs interleave the tools, so load changes hit them all):
#   parse        parse_only --mode parse          (same walk, same grammars, 1 parser/worker,
#                                                  tree-sitter on mimalloc as in cc-server)
#   parse+tags   parse_only --mode tags           (also runs the tags query, builds nothing)
#   parse+tags@1 parse_only --mode tags -j 1, pinned to one core (taskset -c 0)
#   ctags        ctags -L <the same files>        (universal-ctags, definitions only, 1 core)
#   ctags -R     ctags -R on the whole tree        (what it picks itself, all its languages)
#   index        cc-server index                   (fresh data dir: walk+parse+extract+write+graph)
#   index@1      cc-server index --threads 1       (fresh data dir), pinned to one core (taskset -c 0)
#   index warm   cc-server index again, nothing changed
# Wall time is measured around each command; peak RSS and CPU come from /usr/bin/time -v.
# The table shows medians over the runs. Then graph_bench on the index (graph build
# time and memory, callers / callees / impact latency p50 / p99 over random symbols).
set -euo pipefail

runs=3
out=/tmp/cc-peers
samples=3000
build=1
repos=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) repos+=("$1"); shift ;;
  esac
done
[ ${#repos[@]} -gt 0 ] || { echo "usage: $0 [--runs N] [--out DIR] [--samples N] [--no-build] REPO_DIR..." >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$here/target}
if [ "$build" = 1 ]; then
  (cd "$here" && cargo build --release -p cc-server -p cc-benches)
fi
bin=$target/release
for b in cc-server parse_only graph_bench; do
  [ -x "$bin/$b" ] || { echo "missing $bin/$b: run cargo build --release -p cc-server -p cc-benches" >&2; exit 1; }
done
command -v ctags >/dev/null || { echo "ctags not found: apt-get install universal-ctags" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found: apt-get install time" >&2; exit 1; }

mkdir -p "$out"
tsv=$out/results.tsv
: > "$tsv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# $(date -u +%FT%TZ) $(nproc) cores, loadavg $(cut -d' ' -f1-3 /proc/loadavg), $(ctags --version | head -1 | cut -d, -f1)"

# measure REPO LABEL RUN OUTSIZE_PATH -- command...
# Appends: repo label run wall_s rss_kb cpu_s files bytes out_bytes phase1_s phase2_s
measure() {
  local repo=$1 label=$2 run=$3 sizepath=$4; shift 5
  local t0 t1 rc=0
  t0=$(date +%s%N)
  /usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  t1=$(date +%s%N)
  if [ $rc -ne 0 ]; then
    echo "FAILED ($rc): $*" >&2; tail -5 "$tmp/stderr" >&2; return 1
  fi
  local wall rss cpu files=- bytes=- size=- p1=- p2=-
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tmp/time")
  cpu=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.2f", u+s}' "$tmp/time")
  case "$label" in
    parse*) files=$(grep -o 'files=[0-9]*' "$tmp/stdout" | cut -d= -f2)
            bytes=$(grep -o ' bytes=[0-9]*' "$tmp/stdout" | cut -d= -f2) ;;
    ctags*) # --totals: "N files, M lines (K kB) scanned ..."
            files=$(grep -o '^[0-9]* files' "$tmp/stderr" | head -1 | cut -d' ' -f1)
            bytes=$(grep -o '([0-9]* kB)' "$tmp/stderr" | head -1 | tr -dc 0-9); bytes=$((bytes * 1024)) ;;
    index*) files=$(grep -m1 -o '"files": [0-9]*' "$tmp/stdout" | grep -o '[0-9]*$')
            bytes=$(grep -m1 -o '"bytes": [0-9]*' "$tmp/stdout" | grep -o '[0-9]*$')
            p1=$(grep -o '"seconds": [0-9.e-]*' "$tmp/stdout" | head -1 | awk '{printf "%.3f", $2}')
            p2=$(grep -o '"seconds": [0-9.e-]*' "$tmp/stdout" | tail -1 | awk '{printf "%.3f", $2}') ;;
  esac
  [ "$sizepath" != - ] && size=$(du -sb "$sizepath" | cut -f1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$repo" "$label" "$run" "$wall" "$rss" "$cpu" "$files" "$bytes" "$size" "$p1" "$p2" >>"$tsv"
}

for dir in "${repos[@]}"; do
  dir=$(cd "$dir" && pwd)
  name=$(basename "$dir")
  list=$out/$name.files
  # The file list (the walk of cc-server) and a warm page cache for every tool.
  "$bin/parse_only" --mode parse --list "$list" "$dir" >/dev/null
  xargs -d '\n' cat <"$list" >/dev/null
  lines=$(xargs -d '\n' cat <"$list" | wc -l)
  echo "$name	lines	$lines" >"$out/$name.lines"
  # The commit: from git, else from a COMMITS file ("name commit" lines) next to the tree.
  commit=$(git -C "$dir" rev-parse HEAD 2>/dev/null || awk -v n="$name" '$1 == n {print $2}' "$(dirname "$dir")/COMMITS" 2>/dev/null)
  commit=${commit:-unknown}
  echo "# $name: $(wc -l <"$list") files, $lines lines, commit $commit, load $(cut -d' ' -f1 /proc/loadavg)"
  data=$out/data-$name
  for run in $(seq 1 "$runs"); do
    measure "$name" "parse" "$run" - -- "$bin/parse_only" --mode parse "$dir"
    measure "$name" "parse+tags" "$run" - -- "$bin/parse_only" --mode tags "$dir"
    measure "$name" "parse+tags@1" "$run" - -- taskset -c 0 "$bin/parse_only" --mode tags --threads 1 "$dir"
    measure "$name" "ctags" "$run" "$tmp/tags" -- ctags --totals=yes -L "$list" -f "$tmp/tags"
    measure "$name" "ctags -R" "$run" "$tmp/tagsR" -- ctags --totals=yes -R -f "$tmp/tagsR" "$dir"
    rm -rf "$data"
    measure "$name" "index" "$run" "$data/repos/$name" -- "$bin/cc-server" --data-dir "$data" index "$dir" --name "$name" --json
    measure "$name" "index warm" "$run" "$data/repos/$name" -- "$bin/cc-server" --data-dir "$data" index "$dir" --name "$name" --json
    rm -rf "$data@1"
    measure "$name" "index@1" "$run" "$data@1/repos/$name" -- taskset -c 0 "$bin/cc-server" --data-dir "$data@1" index "$dir" --name "$name" --json --threads 1
    rm -rf "$data@1"
  done
  /usr/bin/time -v -o "$tmp/gtime" "$bin/graph_bench" --data "$data" --repo "$name" --samples "$samples" >"$out/$name.graph"
  awk -F': ' '/Maximum resident set size/{printf "process peak_rss_mb=%.1f\n", $2/1024}' "$tmp/gtime" >>"$out/$name.graph"
done

# Medians per (repo, tool), then the table and the ratios.
awk -F'\t' -v OFS='\t' '
function median(s,   a, n, i, j, t) {
  n = split(s, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; j = i - 1; while (j > 0 && a[j] + 0 > t + 0) { a[j+1] = a[j]; j-- } a[j+1] = t }
  if (n == 0 || a[1] == "-") return "-"
  return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  for (c = 4; c <= 11; c++) v[k, c] = v[k, c] " " $c }
END {
  for (i = 1; i <= nk; i++) { k = order[i]; split(k, p, SUBSEP)
    printf "%s\t%s", p[1], p[2]; for (c = 4; c <= 11; c++) printf "\t%s", median(v[k, c]); printf "\n" }
}' "$tsv" >"$out/medians.tsv"

echo
printf '%-17s %-13s %6s %7s %7s %7s %8s %7s %6s %8s %s\n' repo tool files MB wall_s MB/s files/s RSS_MB CPU_s out_MB "(index_s+graph_s)"
awk -F'\t' '
{ repo=$1; tool=$2; wall=$3; rss=$4; cpu=$5; files=$6; bytes=$7; size=$8
  if (tool == "parse") { srcf[repo] = files; srcb[repo] = bytes }
  f = (files == "-") ? srcf[repo] : files; b = (bytes == "-") ? srcb[repo] : bytes
  if (tool == "index warm") { f = srcf[repo]; b = srcb[repo] }
  phases = ($9 == "-") ? "" : sprintf("(%.2f+%.2f)", $9, $10)
  printf "%-17s %-13s %6d %7.1f %7.2f %7.1f %8.0f %7.0f %6.1f %8s %s\n", repo, tool, f, b/1e6, wall, b/1e6/wall, f/wall, rss/1024, cpu, (size == "-") ? "-" : sprintf("%.1f", size/1e6), phases
}' "$out/medians.tsv"

echo
printf '%-17s %9s %9s %9s %9s %9s %9s %9s %8s\n' repo idx/parse idx/tags cpu/tags idx/ctags scale1→2 tags1→2 warm_s idx/src
awk -F'\t' '
{ w[$1, $2] = $3; cpu[$1, $2] = $5; size[$1, $2] = $8; if ($2 == "parse") { bytes[$1] = $7; order[++n] = $1 } }
END { for (i = 1; i <= n; i++) { r = order[i]
  printf "%-17s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.2f\n", r,
    w[r, "index"] / w[r, "parse"], w[r, "index"] / w[r, "parse+tags"], cpu[r, "index"] / cpu[r, "parse+tags"],
    w[r, "index"] / w[r, "ctags"], w[r, "index@1"] / w[r, "index"], w[r, "parse+tags@1"] / w[r, "parse+tags"],
    w[r, "index warm"], size[r, "index"] / bytes[r] } }' "$out/medians.tsv"

echo
# The ratio of medians above mixes rounds; a ratio within one round is steadier when the
# host's speed drifts (it does here, by up to 2x within an hour).
echo "index phase / parse+tags, per round (the index command's \"seconds\" over parse+tags' wall time, same round):"
awk -F'\t' '
$2 == "parse+tags" { t[$1, $3] = $4 } $2 == "index" { i[$1, $3] = $10; if (!seen[$1]++) order[++n] = $1 }
END { for (k = 1; k <= n; k++) { r = order[k]; line = ""; m = 0
    for (run = 1; (r, run) in t; run++) { v[++m] = i[r, run] / t[r, run]; line = line sprintf(" %.2f", v[m]) }
    for (a = 2; a <= m; a++) { x = v[a]; b = a - 1; while (b > 0 && v[b] > x) { v[b+1] = v[b]; b-- } v[b+1] = x }
    med = (m % 2) ? v[(m+1)/2] : (v[m/2] + v[m/2+1]) / 2
    printf "  %-17s median %.2f  rounds:%s\n", r, med, line } }' "$tsv"

echo
echo "graph (graph_bench, $samples random symbols, seed 42):"
for dir in "${repos[@]}"; do
  name=$(basename "$(cd "$dir" && pwd)")
  echo "## $name ($(cut -f3 "$out/$name.lines") lines)"
  sed 's/^/  /' "$out/$name.graph"
done
echo
echo "raw runs: $tsv; medians: $out/medians.tsv"
