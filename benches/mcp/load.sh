#!/usr/bin/env bash
# Load benchmark of the MCP server over Streamable HTTP (not a test): tools/call of
# search_code and code_callers with 1, 16 and 64 concurrent clients (one MCP session each),
# throughput and p50/p99 latency from wrk, the server's memory (RSS) while serving and
# its CPU time per request (what the 2 cores leave to wrk is the rest).
#   benches/mcp/load.sh REPO [SECONDS]      # REPO: a checkout to index and serve
# Needs: wrk (apt-get install wrk), curl, a release build (cargo build --release -p cc-server).
set -euo pipefail
repo=${1:?usage: benches/mcp/load.sh REPO [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
bin=${CC_SERVER_BIN:-$here/../../target/release/cc-server}
data=$(mktemp -d); trap 'kill $pid 2>/dev/null; rm -rf "$data"' EXIT
export CC_DATA_DIR=$data
"$bin" index "$repo" --name bench -q >/dev/null
port=$((20000 + RANDOM % 20000))
"$bin" serve --port "$port" 2>"$data/server.log" & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
url="http://127.0.0.1:$port/mcp"

# A symbol to ask about: the most-called one is a fair worst case for code_callers.
symbol=${CC_SYMBOL:-$("$bin" search "${CC_QUERY:-get}" --repo bench --json --limit 1 | python3 -c 'import json,sys; h=json.load(sys.stdin); print(h[0]["symbol"]["id"] if h else "main")')}

open_sessions() { # N -> file with N session ids
  local n=$1 f=$data/sessions.$1
  : >"$f"
  for _ in $(seq "$n"); do
    sid=$(curl -s -D - -o /dev/null -X POST "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' \
      | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
    curl -s -o /dev/null -X POST "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
      -H "mcp-session-id: $sid" -H 'MCP-Protocol-Version: 2025-06-18' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo "$sid" >>"$f"
  done
  echo "$f"
}

# The server's CPU time so far, in clock ticks (user + system).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
tick=$(getconf CLK_TCK)

printf '%-13s %8s %10s %9s %9s %9s %10s %12s\n' tool clients requests req/s p50_ms p99_ms rss_MB server_cpu_ms
for tool in search_code code_callers; do
  case $tool in
    search_code) args='{"workspace_id":"default","query":"parse config file","limit":10}' ;;
    code_callers) args="{\"workspace_id\":\"default\",\"symbol\":\"$symbol\",\"depth\":2}" ;;
  esac
  # One call first: the repository is loaded on first use, and wrk would count that wait
  # (its latency correction fills a stall with the samples it would have taken).
  warm=$(open_sessions 1)
  curl -s -o /dev/null -X POST "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "mcp-session-id: $(cat "$warm")" -H 'MCP-Protocol-Version: 2025-06-18' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"$tool\",\"arguments\":$args}}"
  for c in 1 16 64; do
    sessions=$(open_sessions "$c")
    cpu0=$(cpu_ticks)
    line=$(CC_SESSIONS=$sessions CC_TOOL=$tool CC_ARGS=$args wrk -t "$c" -c "$c" -d "${secs}s" --latency -s "$here/call.lua" "$url" | grep '^RESULT')
    cpu1=$(cpu_ticks)
    rss=$(awk '/VmRSS/{printf "%.1f", $2/1024}' /proc/$pid/status)
    eval "$(echo "$line" | sed 's/^RESULT //')"
    per=$(awk -v d=$((cpu1 - cpu0)) -v t="$tick" -v n="$requests" 'BEGIN{printf "%.3f", d / t * 1000 / n}')
    printf '%-13s %8s %10s %9s %9s %9s %10s %12s\n' "$tool" "$c" "$requests" "$rps" "$p50_ms" "$p99_ms" "$rss" "$per"
    [ "${non2xx:-0}" = 0 ] || echo "  ($non2xx non-2xx responses)"
  done
done
