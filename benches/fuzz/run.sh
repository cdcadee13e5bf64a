#!/usr/bin/env bash
# Coverage-guided fuzzing of cc-server with cargo-fuzz (libFuzzer, AddressSanitizer): a
# benchmark-style run, not a CI test. Each target runs RUNS executions (default 1,000,000)
# from its checked-in seeds (seeds/<target>/, never written to) plus a working corpus kept
# between runs (corpus/<target>/ under the work folder); a crash, a failed assertion, a
# leak or a too large allocation stops the target and leaves its input in artifacts/.
#   benches/fuzz/run.sh [RUNS] [TARGET...]    # targets: jsonrpc http tool_args tokenize records
# CC_FUZZ_SECONDS, when set, also bounds each target's time (whichever ends first).
# Needs the stable toolchain (RUSTC_BOOTSTRAP=1 lets it take cargo-fuzz's nightly flags)
# and cargo-fuzz (installed if missing). Work folder (corpora, logs, artifacts):
# $CC_FUZZ_WORK, default target/fuzz. The instrumented build goes to $CARGO_TARGET_DIR
# (default target/), under x86_64-unknown-linux-gnu/, apart from the normal builds.
# A crash found becomes a regression test in the normal suite (see README.md here).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-1000000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jsonrpc http tool_args tokenize records)
work=${CC_FUZZ_WORK:-$root/target/fuzz}
build=${CARGO_TARGET_DIR:-$root/target}
time_limit=
[ -z "${CC_FUZZ_SECONDS:-}" ] || time_limit=-max_total_time=$CC_FUZZ_SECONDS
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# libFuzzer flags per target: records gets a tight allocation limit (a file of a few KB
# must never make the reader allocate hundreds of MB).
flags() {
  case $1 in
    records) echo "-malloc_limit_mb=256 -max_len=65536" ;;
    http | tool_args) echo "-max_len=8192 -timeout=30" ;;
    *) echo "-max_len=4096" ;;
  esac
}

for t in "${targets[@]}"; do cargo fuzz build --fuzz-dir "$here" --target-dir "$build" "$t"; done

mkdir -p "$work"
printf '%-10s %12s %8s %8s %9s %s\n' target executions corpus findings seconds result >"$work/summary.txt"
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  log=$work/$t.log
  started=$(date +%s)
  set +e
  # shellcheck disable=SC2046
  cargo fuzz run --fuzz-dir "$here" --target-dir "$build" "$t" "$work/corpus/$t" "$here/seeds/$t" -- \
    -runs="$runs" -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" $time_limit $(flags "$t") >"$log" 2>&1
  rc=$?
  set -e
  secs=$(($(date +%s) - started))
  execs=$(awk '/stat::number_of_executed_units/ {print $NF}' "$log" | tail -n1)
  corpus=$(find "$work/corpus/$t" -type f | wc -l)
  findings=$(find "$work/artifacts/$t" -type f | wc -l)
  result=ok
  [ "$rc" = 0 ] || result="stopped (exit $rc): $(grep -m1 -E 'panicked at|ERROR: |SUMMARY' "$log" || true)"
  printf '%-10s %12s %8s %8s %9s %s\n' "$t" "${execs:-?}" "$corpus" "$findings" "$secs" "$result" | tee -a "$work/summary.txt"
done
echo
cat "$work/summary.txt"
echo "(logs, corpora and artifacts under $work)"
