# Sourced by the MCP benches: served_port LOG prints the port `cc-server serve --port 0`
# names in its log LOG (waiting up to 60 s for it), or fails showing the log.
served_port() {
  for _ in $(seq 600); do
    p=$(grep -oE 'serving MCP on http://127\.0\.0\.1:[0-9]+/mcp' "$1" 2>/dev/null | head -1 | grep -oE '[0-9]+/mcp' | cut -d/ -f1) || true
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.1
  done
  echo "no server in $1:" >&2; cat "$1" >&2; exit 1
}
