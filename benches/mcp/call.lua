-- wrk script: one MCP session per wrk thread (ids from $CC_SESSIONS, one per line),
-- each request a tools/call of $CC_TOOL with $CC_ARGS (JSON), latency per request.
local sessions = {}
local counter = 0

function setup(thread)
  if #sessions == 0 then
    for line in io.lines(os.getenv("CC_SESSIONS")) do table.insert(sessions, line) end
  end
  counter = counter + 1
  thread:set("session", sessions[((counter - 1) % #sessions) + 1])
end

function init(args)
  local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' ..
    os.getenv("CC_TOOL") .. '","arguments":' .. os.getenv("CC_ARGS") .. '}}'
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["Mcp-Session-Id"] = session
  wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
end

errors = 0
function response(status, headers, body)
  if status ~= 200 or string.find(body, '"isError":true', 1, true) then errors = errors + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    (summary.errors.status or 0)))
end
