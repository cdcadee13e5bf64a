#!/usr/bin/env bash
# The overhead of a bridged call (docs/bridge.md, issue 34), with a compiled load generator
# (mcp_load) so that the clients do not saturate the machine: the same tool of the same
# external server called directly and through cc-server's bridge, interleaved, ROUNDS rounds.
# Two external servers, both over Streamable HTTP on 127.0.0.1:
#   py: tests/mcp/bridge_server.py (FastMCP of the Python `mcp` SDK), tool echo;
#   cc: a second cc-server (`serve`), tool list_workspaces (a compiled server: the bridge's
#       own cost is not hidden behind a slow upstream).
#
#   CC_SERVER_BIN=… MCP_LOAD_BIN=… PYTHON=<venv>/bin/python benches/mcp/bridge_overhead.sh [CLIENTS] [CALLS] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC_SERVER_BIN:?set CC_SERVER_BIN to a cc-server binary}
load=${MCP_LOAD_BIN:?set MCP_LOAD_BIN to the mcp_load binary}
py=${PYTHON:-python3}
clients=${1:-64} calls=${2:-100} rounds=${3:-2}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT

free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
. "$root/benches/mcp/served.sh"
wait_port() {
  for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done
  echo "nothing listens on $1" >&2; exit 1
}

py_port=$(free_port)
BRIDGE_STATE="$tmp/state" "$py" "$root/tests/mcp/bridge_server.py" http "$py_port" >"$tmp/py.log" 2>&1 &
mkdir -p "$tmp/inner" "$tmp/outer"
CC_NO_PROJECT=1 CC_LOG=warn "$cc" --data-dir "$tmp/inner" serve --port 0 >"$tmp/inner.log" 2>&1 &
wait_port "$py_port"
inner_port=$(served_port "$tmp/inner.log")
cat >"$tmp/config.toml" <<TOML
[[bridge]]
name = "py"
url = "http://127.0.0.1:$py_port/mcp"
[bridge.tools.echo]
approval = false

[[bridge]]
name = "cc"
url = "http://127.0.0.1:$inner_port/mcp"
[bridge.tools.list_workspaces]
approval = false
TOML
CC_NO_PROJECT=1 CC_LOG=warn "$cc" --data-dir "$tmp/outer" --config "$tmp/config.toml" serve --port 0 >"$tmp/outer.log" 2>&1 &
outer_port=$(served_port "$tmp/outer.log")
echo "external py :$py_port, external cc :$inner_port, bridging cc-server :$outer_port; $clients clients x $calls calls, $rounds rounds"
for r in $(seq "$rounds"); do
  echo "-- round $r"
  printf 'py direct   '; "$load" "http://127.0.0.1:$py_port/mcp" echo '{"text":"x"}' "$clients" "$calls"
  printf 'py bridged  '; "$load" "http://127.0.0.1:$outer_port/mcp" py__echo '{"text":"x"}' "$clients" "$calls"
  printf 'cc direct   '; "$load" "http://127.0.0.1:$inner_port/mcp" list_workspaces '{}' "$clients" "$calls"
  printf 'cc bridged  '; "$load" "http://127.0.0.1:$outer_port/mcp" cc__list_workspaces '{}' "$clients" "$calls"
done
