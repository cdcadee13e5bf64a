"""Bad input over the wire, with raw HTTP (no MCP client): malformed JSON, wrong
JSON-RPC shapes, unknown methods, oversized bodies, unknown sessions, DNS-rebinding
Host/Origin checks and the bearer token, on Streamable HTTP (/mcp) and on the legacy
HTTP+SSE pair (/sse + /messages).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

import httpx2 as httpx
import pytest

from conftest import TOKEN

POST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-wire-test", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
EVIL_HOST = "evil.example.com"
EVIL_ORIGIN = "http://evil.example.com"
# Bigger than the server's 4 MiB body limit.
OVERSIZED = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (5 << 20) + b'"}}'

WRONG_SHAPES = [
    pytest.param(b"[]", id="empty-batch"),
    pytest.param(b"42", id="number"),
    pytest.param(b'"ping"', id="string"),
    pytest.param(b"null", id="null"),
    pytest.param(b'{"jsonrpc":"2.0"}', id="no-method"),
    pytest.param(b'{"id":7,"method":"ping"}', id="no-jsonrpc"),
    pytest.param(b'{"jsonrpc":"1.0","id":7,"method":"ping"}', id="jsonrpc-1.0"),
    pytest.param(b'{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', id="object-id"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":42}', id="number-method"),
]


def client(base: str, **kw) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=httpx.Timeout(30.0), **kw)


def sse_messages(text: str) -> list[dict[str, Any]]:
    """The JSON data of every SSE event in a complete text/event-stream body."""
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [ln[5:].lstrip(" ") for ln in block.split("\n") if ln.startswith("data:")]
        if data and "".join(data).strip():
            try:
                out.append(json.loads("\n".join(data)))
            except ValueError:
                pass
    return out


def jsonrpc_messages(r: httpx.Response) -> list[dict[str, Any]]:
    ctype = r.headers.get("content-type", "")
    if ctype.startswith("text/event-stream"):
        return sse_messages(r.text)
    if ctype.startswith("application/json"):
        v = r.json()
        return v if isinstance(v, list) else [v]
    return []


def error_code(r: httpx.Response) -> int | None:
    for m in jsonrpc_messages(r):
        if "error" in m:
            return m["error"].get("code")
    return None


# ---------------------------------------------------------------- Streamable HTTP


def http_session(c: httpx.Client) -> dict[str, str]:
    """Initializes a Streamable HTTP session; returns the headers later requests carry."""
    r = c.post("/mcp", json=INIT, headers=POST_HEADERS)
    assert r.status_code == 200, (r.status_code, r.text)
    [res] = [m for m in jsonrpc_messages(r) if m.get("id") == 1]
    assert res["result"]["protocolVersion"] == "2025-11-25"
    sid = r.headers.get("mcp-session-id")
    assert sid, r.headers
    h = {**POST_HEADERS, "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    r = c.post("/mcp", json=INITIALIZED, headers=h)
    assert r.status_code == 202, (r.status_code, r.text)
    return h


def test_http_round_trip(http_server):
    with client(http_server.base) as c:
        h = http_session(c)
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=h)
        assert r.status_code == 200
        [m] = [m for m in jsonrpc_messages(r) if m.get("id") == 2]
        assert "search_code" in [t["name"] for t in m["result"]["tools"]]


@pytest.mark.parametrize("with_session", [False, True], ids=["no-session", "session"])
def test_http_malformed_json(http_server, with_session):
    with client(http_server.base) as c:
        h = http_session(c) if with_session else POST_HEADERS
        r = c.post("/mcp", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=h)
        assert r.status_code == 400, (r.status_code, r.text)
        assert error_code(r) == -32700, r.text


@pytest.mark.parametrize("body", WRONG_SHAPES)
def test_http_wrong_jsonrpc_shapes(http_server, body):
    with client(http_server.base) as c:
        h = http_session(c)
        r = c.post("/mcp", content=body, headers=h)
        assert r.status_code == 400, (r.status_code, r.text)
        assert error_code(r) == -32600, r.text
        # The session survives a bad message.
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=h)
        assert r.status_code == 200 and [m for m in jsonrpc_messages(r) if m.get("id") == 9 and "result" in m]


def test_http_unknown_method(http_server):
    with client(http_server.base) as c:
        h = http_session(c)
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 5, "method": "no/such_method"}, headers=h)
        assert r.status_code == 200, (r.status_code, r.text)
        [m] = [m for m in jsonrpc_messages(r) if m.get("id") == 5]
        assert m["error"]["code"] == -32601, m


def test_http_oversized_body(http_server):
    with client(http_server.base) as c:
        r = c.post("/mcp", content=OVERSIZED, headers=POST_HEADERS)
        assert r.status_code == 413, (r.status_code, r.text[:200])
        h = http_session(c)
        r = c.post("/mcp", content=OVERSIZED, headers=h)
        assert r.status_code == 413, (r.status_code, r.text[:200])


def test_http_unknown_session(http_server):
    with client(http_server.base) as c:
        h = {**POST_HEADERS, "Mcp-Session-Id": "00000000000000000000000000000000", "MCP-Protocol-Version": "2025-11-25"}
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=h)
        assert r.status_code == 404, (r.status_code, r.text)
        # A deleted session is unknown too.
        h = http_session(c)
        r = c.delete("/mcp", headers=h)
        assert r.status_code in (200, 202, 204), (r.status_code, r.text)
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=h)
        assert r.status_code == 404, (r.status_code, r.text)


# ---------------------------------------------------------------- legacy HTTP+SSE


class SseStream:
    """An open GET /sse stream read event by event (bounded by the client's read timeout)."""

    def __init__(self, response: httpx.Response):
        self.response = response
        self.lines = response.iter_lines()

    def next_event(self) -> tuple[str, str]:
        event, data = "message", []
        for line in self.lines:
            if line == "":
                if data:
                    return event, "\n".join(data)
                event = "message"
                continue
            if line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                event = value
            elif key == "data":
                data.append(value)
        raise AssertionError("the SSE stream ended")

    def next_message(self) -> dict[str, Any]:
        while True:
            event, data = self.next_event()
            if event == "message":
                return json.loads(data)


@contextmanager
def sse_open(base: str, headers: dict[str, str] | None = None) -> Iterator[tuple[httpx.Client, SseStream, str]]:
    with client(base) as c, c.stream("GET", "/sse", headers={"Accept": "text/event-stream", **(headers or {})}) as r:
        assert r.status_code == 200, (r.status_code, r.read())
        assert r.headers["content-type"].startswith("text/event-stream")
        s = SseStream(r)
        event, endpoint = s.next_event()
        assert event == "endpoint" and endpoint.startswith("/messages?sessionId="), (event, endpoint)
        yield c, s, endpoint


def sse_initialize(c: httpx.Client, s: SseStream, endpoint: str, headers: dict[str, str] | None = None) -> None:
    h = {"Content-Type": "application/json", **(headers or {})}
    r = c.post(endpoint, json={**INIT, "params": {**INIT["params"], "protocolVersion": "2024-11-05"}}, headers=h)
    assert r.status_code == 202, (r.status_code, r.text)
    m = s.next_message()
    assert m["id"] == 1 and m["result"]["protocolVersion"] == "2024-11-05", m
    r = c.post(endpoint, json=INITIALIZED, headers=h)
    assert r.status_code == 202, (r.status_code, r.text)


def test_sse_round_trip(http_server):
    with sse_open(http_server.base) as (c, s, endpoint):
        sse_initialize(c, s, endpoint)
        r = c.post(endpoint, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert r.status_code == 202
        m = s.next_message()
        assert m["id"] == 2 and "code_callers" in [t["name"] for t in m["result"]["tools"]]


def test_sse_malformed_json(http_server):
    with sse_open(http_server.base) as (c, s, endpoint):
        sse_initialize(c, s, endpoint)
        r = c.post(endpoint, content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers={"Content-Type": "application/json"})
        assert r.status_code == 400, (r.status_code, r.text)
        assert error_code(r) == -32700, r.text


@pytest.mark.parametrize("body", WRONG_SHAPES)
def test_sse_wrong_jsonrpc_shapes(http_server, body):
    with sse_open(http_server.base) as (c, s, endpoint):
        sse_initialize(c, s, endpoint)
        r = c.post(endpoint, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, (r.status_code, r.text)
        assert error_code(r) == -32600, r.text
        # The session survives a bad message.
        r = c.post(endpoint, json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
        assert r.status_code == 202
        m = s.next_message()
        assert m["id"] == 9 and "result" in m, m


def test_sse_unknown_method(http_server):
    with sse_open(http_server.base) as (c, s, endpoint):
        sse_initialize(c, s, endpoint)
        r = c.post(endpoint, json={"jsonrpc": "2.0", "id": 5, "method": "no/such_method"})
        assert r.status_code == 202, (r.status_code, r.text)
        m = s.next_message()
        assert m["id"] == 5 and m["error"]["code"] == -32601, m


def test_sse_oversized_body(http_server):
    with sse_open(http_server.base) as (c, s, endpoint):
        r = c.post(endpoint, content=OVERSIZED, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, (r.status_code, r.text[:200])


def test_sse_unknown_or_missing_session(http_server):
    with client(http_server.base) as c:
        r = c.post("/messages?sessionId=nosuchsession", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 404, (r.status_code, r.text)
        r = c.post("/messages", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 400, (r.status_code, r.text)


def test_sse_session_ends_with_its_stream(http_server):
    with sse_open(http_server.base) as (c, s, endpoint):
        sse_initialize(c, s, endpoint)
    with client(http_server.base) as c:
        r = c.post(endpoint, json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert r.status_code in (404, 410), (r.status_code, r.text)


# ---------------------------------------------------------------- DNS rebinding: Host and Origin


# One request per route: (name, method, path, body).
ROUTES = [
    ("POST /mcp", "POST", "/mcp", json.dumps(INIT).encode()),
    ("GET /sse", "GET", "/sse", None),
    ("POST /messages", "POST", "/messages?sessionId=whatever", json.dumps(INIT).encode()),
]


@pytest.mark.parametrize("route", [0, 1, 2], ids=["mcp", "sse", "messages"])
@pytest.mark.parametrize(
    "bad",
    [
        pytest.param({"Host": EVIL_HOST}, id="foreign-host"),
        pytest.param({"Host": f"{EVIL_HOST}:9030"}, id="foreign-host-port"),
        pytest.param({"Origin": EVIL_ORIGIN}, id="foreign-origin"),
        pytest.param({"Origin": "null"}, id="null-origin"),
        pytest.param({"Host": EVIL_HOST, "Origin": EVIL_ORIGIN}, id="both"),
    ],
)
def test_rebinding_rejected(http_server, route, bad):
    name, method, path, body = ROUTES[route]
    with client(http_server.base) as c:
        h = {**POST_HEADERS, **bad}
        r = c.request(method, path, content=body, headers=h)
        assert r.status_code == 403, (name, bad, r.status_code, r.text)


def test_loopback_host_and_origin_accepted(http_server):
    port = http_server.port
    with client(http_server.base) as c:
        for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
            h = {**POST_HEADERS, "Host": host, "Origin": f"http://{host}"}
            r = c.post("/mcp", json=INIT, headers=h)
            assert r.status_code == 200, (host, r.status_code, r.text)
    with sse_open(http_server.base, headers={"Origin": f"http://localhost:{port}"}) as (c, s, endpoint):
        r = c.post(endpoint, json=INIT, headers={"Origin": f"http://localhost:{port}"})
        assert r.status_code == 202, (r.status_code, r.text)


# ---------------------------------------------------------------- the bearer token


@pytest.mark.parametrize("route", [0, 1, 2], ids=["mcp", "sse", "messages"])
@pytest.mark.parametrize(
    "auth",
    [
        pytest.param(None, id="missing"),
        pytest.param(f"Bearer {TOKEN}x", id="wrong"),
        pytest.param("Bearer", id="empty"),
        pytest.param(f"Basic {TOKEN}", id="other-scheme"),
        pytest.param(TOKEN, id="no-scheme"),
    ],
)
def test_token_required(token_server, route, auth):
    name, method, path, body = ROUTES[route]
    h = dict(POST_HEADERS)
    if auth is not None:
        h["Authorization"] = auth
    with client(token_server.base) as c:
        r = c.request(method, path, content=body, headers=h)
        assert r.status_code == 401, (name, auth, r.status_code, r.text)
        assert r.headers.get("www-authenticate", "").startswith("Bearer"), r.headers


def test_token_accepted(token_server):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with client(token_server.base) as c:
        r = c.post("/mcp", json=INIT, headers={**POST_HEADERS, **auth})
        assert r.status_code == 200, (r.status_code, r.text)
        assert r.headers.get("mcp-session-id")
    with sse_open(token_server.base, headers=auth) as (c, s, endpoint):
        sse_initialize(c, s, endpoint, headers=auth)
        # The token is checked on every request, not only when the session opens.
        r = c.post(endpoint, json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert r.status_code == 401, (r.status_code, r.text)
