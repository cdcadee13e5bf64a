#!/usr/bin/env bash
# Accuracy of cc-server's call graph against compilers' and language servers' call graphs.
# See README.md. Usage: benches/accuracy/run.sh [NAME...]   (default: every row of repos.tsv)
# Steps whose output exists in $ACC_WORK are not redone: remove $ACC_WORK/out/NAME (and
# $ACC_WORK/data) to start over, e.g. after rebuilding a binary.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${ACC_WORK:?set ACC_WORK: a scratch folder outside the repository}"
: "${ACC_MIRROR:?set ACC_MIRROR: a folder holding OWNER+NAME/repo bare git dirs of repos.tsv}"
: "${BEFORE_BIN:?set BEFORE_BIN: the cc-server binary built from the base commit}"
: "${AFTER_BIN:?set AFTER_BIN: the cc-server binary built from this branch}"
PYTHON=${PYTHON:-python3}          # with jedi (requirements.txt)
SEED=${SEED:-25}
N=${N:-300}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(grep -v '^#' "$HERE/repos.tsv" | cut -f1)
fi
for name in "${names[@]}"; do
  IFS=$'\t' read -r _ lang repo commit folder refopts < <(grep -P "^$name\t" "$HERE/repos.tsv")
  read -ra refargs <<< "${refopts:-}"  # the reference's own options (C, C++), not globbed
  src=$ACC_WORK/src/$name out=$ACC_WORK/out/$name
  mkdir -p "$out"
  if [ ! -d "$src" ]; then
    mkdir -p "$src"
    strip=$(echo "$folder" | tr / '\n' | wc -l); [ "$folder" = . ] && strip=0
    # Sources, not their tests; but Zig's compiler compiles what its tests reach, and only that.
    skip=(--exclude=tests --exclude=__tests__ --exclude=testdata --exclude='*.test.ts' --exclude='*.spec.ts'
          --exclude='*.d.ts' --exclude='*_test.go')
    [ "$lang" = zig ] && skip=()
    git --git-dir="$ACC_MIRROR/${repo/\//+}/repo" archive "$commit" "$folder" \
      | tar -x -C "$src" --strip-components=$strip "${skip[@]}"
    # An R package's DESCRIPTION names the package (its own `PKG::f()` calls): beside the
    # files, as it is above them in the repository.
    if [ "$lang" = r ]; then
      git --git-dir="$ACC_MIRROR/${repo/\//+}/repo" archive "$commit" DESCRIPTION | tar -x -C "$src"
    fi
  fi
  echo "== $name ($lang, $repo@${commit:0:12}, $folder)" >&2
  if [ ! -s "$out/ref.json" ]; then
    case $lang in
      python) "$PYTHON" "$HERE/ref_python.py" "$src" > "$out/ref.json" ;;
      typescript) node "$HERE/ref_ts.js" "$src" > "$out/ref.json" ;;
      java) "$HERE/ref_java.sh" "$src" > "$out/ref.json" ;;
      go) (cd "$HERE/ref_go" && go run . "$src") > "$out/ref.json" ;;
      c|cpp) python3 "$HERE/ref_c.py" --lang=$lang "$src" "${refargs[@]}" > "$out/ref.json" ;;
      ada) python3 "$HERE/ref_ada.py" "$src" "${refargs[@]}" > "$out/ref.json" ;;
      kotlin) python3 "$HERE/ref_kotlin.py" "$src" > "$out/ref.json" ;;
      ruby) ruby "$HERE/ref_ruby.rb" "$src" > "$out/ref.json" ;;
      php) php "$HERE/ref_php.php" "$src" > "$out/ref.json" ;;
      r) Rscript "$HERE/ref_r.R" "$src" "${refargs[@]}" > "$out/ref.json" ;;
      csharp) "$PYTHON" "$HERE/ref_csharp.py" "$src" "${refargs[@]}" > "$out/ref.json" ;;
      zig) "$PYTHON" "$HERE/ref_zig.py" "$src" "${refargs[@]}" > "$out/ref.json" ;;
      rust)  # rustc needs the whole repository (a workspace member's manifest names its root)
        crate=$ACC_WORK/crate/$name
        [ -d "$crate" ] || { mkdir -p "$crate"; git --git-dir="$ACC_MIRROR/${repo/\//+}/repo" archive "$commit" | tar -x -C "$crate"; }
        CARGO_TARGET_DIR=$ACC_WORK/crate/target "$PYTHON" "$HERE/ref_rust.py" "$crate/$(dirname "$folder")/Cargo.toml" "$crate/$folder" > "$out/ref.json" ;;
    esac
  fi
  mkdir -p "$HERE/samples"
  [ -s "$HERE/samples/$name.txt" ] || python3 "$HERE/sample.py" "$out/ref.json" "$SEED" "$N" > "$HERE/samples/$name.txt"
  for side in before after; do
    bin=BEFORE_BIN; [ $side = after ] && bin=AFTER_BIN
    data=$ACC_WORK/data/$side
    [ -d "$data/repos/$name" ] || "${!bin}" --data-dir "$data" -q index "$src" >&2
    [ -s "$out/answers-$side.json" ] || CC_BIN=${!bin} CC_DATA=$data python3 "$HERE/ccquery.py" "$out/ref.json" "$HERE/samples/$name.txt" "$name" > "$out/answers-$side.json"
    # Both sides' exports, so that both scores tell implicit calls (which the references do
    # not model) apart; a binary without `graph export` is scored without one.
    [ -s "$out/symbols-$side.json" ] || {
      if "${!bin}" --data-dir "$data" graph export --repo "$name" --format jsonl > "$out/export-$side.jsonl" 2>/dev/null; then
        CC_BIN=${!bin} CC_DATA=$data python3 "$HERE/ccsymbols.py" "$out/export-$side.jsonl" "$name" > "$out/symbols-$side.json"
      else
        rm -f "$out/export-$side.jsonl"
      fi
    }
    exported=()
    [ -s "$out/symbols-$side.json" ] && exported=("$out/export-$side.jsonl" "$out/symbols-$side.json")
    python3 "$HERE/score.py" "$out/ref.json" "$HERE/samples/$name.txt" "$out/answers-$side.json" \
      "${exported[@]}" > "$out/score-$side.json"
  done
done
python3 "$HERE/report.py" "$ACC_WORK/out" "$HERE/repos.tsv"
