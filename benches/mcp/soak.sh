#!/usr/bin/env bash
# Memory soak of the MCP server over Streamable HTTP (a benchmark, not a test): 64 MCP
# sessions calling a mix of tools (search_code, code_symbol, code_callers, code_callees,
# code_impact, code_read, list_repos, list_workspaces, tools/list, resources/read) for 10
# minutes against `cc-server serve` on REPO; the server's resident memory at the start,
# after the warm-up and every minute, and its growth since the warm-up (goal: under 10%).
#   benches/mcp/soak.sh REPO [SECONDS] [SESSIONS]
# The load generator is compiled (benches/src/bin/mcp_soak.rs), so it takes little of the
# cores next to the server. Needs release builds:
#   cargo build --release -p cc-server -p cc-benches --bin cc-server --bin mcp_soak
# With CC_EMBED_MODEL (and ORT_DYLIB_PATH) set, the repository is embedded and searches
# are hybrid (each query embedded: the query-vector cache churns); else BM25 only.
# CC_SOAK_WARMUP (seconds, default 60) and CC_SOAK_CHURN (calls per session before it is
# closed and reopened, default 500) are read by mcp_soak.
set -euo pipefail
repo=${1:?usage: benches/mcp/soak.sh REPO [SECONDS] [SESSIONS]}
secs=${2:-600}
sessions=${3:-64}
here=$(cd "$(dirname "$0")" && pwd)
target=${CARGO_TARGET_DIR:-$here/../../target}
bin=${CC_SERVER_BIN:-$target/release/cc-server}
soak=${CC_SOAK_BIN:-$target/release/mcp_soak}
data=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
export CC_DATA_DIR=$data
embed=--no-embed
[ -n "${CC_EMBED_MODEL:-}" ] && embed=
"$bin" index "$repo" --name soak -q $embed >/dev/null
port=$((20000 + RANDOM % 20000))
"$bin" serve --port "$port" 2>"$data/server.log" &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
echo "server pid $pid, $(awk '/VmRSS/{printf "%.1f MB", $2/1024}' /proc/$pid/status) before the first session"
"$soak" "http://127.0.0.1:$port/mcp" "$pid" "$sessions" "$secs"
