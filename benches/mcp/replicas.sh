#!/usr/bin/env bash
# Two replicas against one replica (docs/deploy.md, issue 36): one throwaway PostgreSQL
# (tests/postgres.sh), one shared data directory with an index of this repository, two
# `cc-server serve` replicas A and B on it. Each round, interleaved, for each tool:
#   one:  mcp_load with 2*CLIENTS sessions against A alone (B idle);
#   two:  mcp_load with CLIENTS sessions against A and, at the same time, CLIENTS against B.
# Tools: list_workspaces (one store query per call: PostgreSQL is shared) and search_code
# (the shared index, read by each replica from disk into its own memory).
#
#   CC_SERVER_BIN=… MCP_LOAD_BIN=… benches/mcp/replicas.sh [CLIENTS] [CALLS] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC_SERVER_BIN:?set CC_SERVER_BIN to a cc-server binary}
load=${MCP_LOAD_BIN:?set MCP_LOAD_BIN to the mcp_load binary}
clients=${1:-64} calls=${2:-100} rounds=${3:-2}
tmp=$(mktemp -d)
eval "$(bash "$root/tests/postgres.sh" start)"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  bash "$root/tests/postgres.sh" stop "$CC_TEST_POSTGRES_DIR" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
export CC_STORE_URL=$CC_TEST_POSTGRES_URL CC_NO_PROJECT=1 CC_LOG=warn

. "$root/benches/mcp/served.sh"

"$cc" --data-dir "$tmp/data" --quiet index "$root" --name cc --workspace team >/dev/null
"$cc" --data-dir "$tmp/data" serve --port 0 >"$tmp/a.log" 2>&1 &
"$cc" --data-dir "$tmp/data" serve --port 0 >"$tmp/b.log" 2>&1 &
a=$(served_port "$tmp/a.log") b=$(served_port "$tmp/b.log")
echo "replicas A :$a and B :$b on one PostgreSQL; $clients clients per replica x $calls calls, $rounds rounds"
search='{"workspace_id":"team","query":"parse the tool arguments","repo":"cc","limit":10}'
for r in $(seq "$rounds"); do
  echo "-- round $r"
  for t in list_workspaces search_code; do
    args='{}'; [ "$t" = search_code ] && args=$search
    printf 'one replica, %s sessions  ' $((2 * clients)); "$load" "http://127.0.0.1:$a/mcp" "$t" "$args" $((2 * clients)) "$calls"
    "$load" "http://127.0.0.1:$a/mcp" "$t" "$args" "$clients" "$calls" >"$tmp/la" & la=$!
    "$load" "http://127.0.0.1:$b/mcp" "$t" "$args" "$clients" "$calls" >"$tmp/lb" & lb=$!
    wait "$la" "$lb"
    printf 'two replicas, A           '; cat "$tmp/la"
    printf 'two replicas, B           '; cat "$tmp/lb"
  done
done
