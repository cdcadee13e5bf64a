"""The real Python MCP SDK against the real cc-server, over stdio, Streamable HTTP and
legacy HTTP+SSE: handshake at several protocol versions, tools/list, every code,
workspace and discovery tool against the fixture repository, error results, and a
cancelled call.
"""

from __future__ import annotations

import json
import os
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSIONS

from conftest import FIXTURE_FILES, REPO_NAME, WORKSPACE, line_of

pytestmark = pytest.mark.anyio

TRANSPORTS = ["stdio", "http", "sse"]
# The oldest revision and the newest one reachable by the initialize handshake.
HANDSHAKE_VERSIONS = ["2024-11-05", LATEST_HANDSHAKE_VERSION]

CODE_TOOLS = ["search_code", "code_symbol", "code_callers", "code_callees", "code_impact", "code_read"]
OTHER_TOOLS = ["list_workspaces", "list_repos", "search_tool_bm25", "list_my_tools"]
SCOPED = set(CODE_TOOLS) | {"list_repos"}


@pytest.fixture
def anyio_backend():
    return "asyncio"


# ---------------------------------------------------------------- connecting


class RecordingWriter:
    """Wraps a transport's write stream: records what the client sends, and can run a
    hook right after a message went out (used to cancel a call while it is in flight)."""

    def __init__(self, inner):
        self.inner = inner
        self.sent: list[dict[str, Any]] = []
        self.after_send = None

    async def send(self, item: SessionMessage, /) -> None:
        await self.inner.send(item)
        msg = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
        self.sent.append(msg)
        if self.after_send is not None:
            self.after_send(msg)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self):
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)


@pytest.fixture
def endpoints(request, cc_bin, indexed, tmp_path):
    """What `connect` needs; the HTTP server is started only for the HTTP transports."""

    class E:
        pass

    e = E()
    e.cc_bin = cc_bin
    e.indexed = indexed
    e.stderr_log = tmp_path / "stdio-stderr.log"
    transport = request.node.callspec.params.get("transport")
    e.http = request.getfixturevalue("http_server") if transport in ("http", "sse") else None
    return e


@asynccontextmanager
async def open_streams(transport: str, e):
    if transport == "stdio":
        params = StdioServerParameters(
            command=e.cc_bin,
            args=["--data-dir", str(e.indexed.data), "mcp", "-p", str(e.indexed.repo)],
            env={"CC_LOG": os.environ.get("CC_LOG", "warn")},
        )
        with open(e.stderr_log, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams
    elif transport == "http":
        async with streamable_http_client(e.http.mcp_url) as streams:
            yield streams
    elif transport == "sse":
        async with sse_client(e.http.sse_url, timeout=30) as streams:
            yield streams
    else:
        raise ValueError(transport)


async def initialize_at(session: ClientSession, version: str) -> types.InitializeResult:
    """The initialize handshake offering `version` (ClientSession.initialize always offers
    the newest handshake version)."""
    result = await session.send_request(
        types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=version,
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="cc-server-tests", version="0"),
            )
        ),
        types.InitializeResult,
    )
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())
    return result


@asynccontextmanager
async def connect(transport: str, version: str, e, writer_hook=None):
    async with open_streams(transport, e) as (read, write):
        writer = RecordingWriter(write)
        if writer_hook is not None:
            writer_hook(writer)
        async with ClientSession(read, writer, read_timeout_seconds=60) as s:
            if version in MODERN_PROTOCOL_VERSIONS:
                await s.discover()
            elif version == LATEST_HANDSHAKE_VERSION:
                await s.initialize()
            else:
                await initialize_at(s, version)
            s.writer = writer
            yield s


def structured_expected(version: str) -> bool:
    """structuredContent and outputSchema exist from 2025-06-18 on; the SDK drops them
    from results of older sessions."""
    return version >= "2025-06-18"


def payload(res: types.CallToolResult, version: str) -> dict[str, Any]:
    """The tool's JSON answer: structuredContent, or for older sessions the JSON text
    block that carries the same value."""
    if structured_expected(version):
        assert res.structured_content is not None, f"no structuredContent at {version}: {res}"
        value = res.structured_content
    else:
        value = None
        for block in reversed(res.content):
            if block.type == "text":
                try:
                    value = json.loads(block.text)
                    break
                except ValueError:
                    continue
        assert value is not None, f"no JSON text block in {res}"
    # The text block mirrors the structured value (backward compatibility).
    texts = [b.text for b in res.content if b.type == "text"]
    assert any(_json_or_none(t) == value for t in texts), f"no text block carries the JSON: {texts}"
    return value


def _json_or_none(t: str):
    try:
        return json.loads(t)
    except ValueError:
        return None


async def ok(s: ClientSession, version: str, tool: str, /, **args) -> dict[str, Any]:
    res = await s.call_tool(tool, args)
    assert not res.is_error, f"{tool}({args}) failed: {res.content}"
    return payload(res, version)


async def err(s: ClientSession, version: str, tool: str, /, **args) -> tuple[types.CallToolResult, dict[str, Any]]:
    res = await s.call_tool(tool, args)
    assert res.is_error, f"{tool}({args}) should have failed: {res}"
    # The message first, for clients that show only the first text block.
    assert res.content and res.content[0].type == "text" and res.content[0].text
    return res, payload(res, version)


def transport_versions():
    return [pytest.param(t, v, id=f"{t}-{v}") for t in TRANSPORTS for v in HANDSHAKE_VERSIONS]


# ---------------------------------------------------------------- handshake


@pytest.mark.parametrize("transport,version", transport_versions())
async def test_initialize_negotiates_the_offered_version(transport, version, endpoints):
    async with connect(transport, version, endpoints) as s:
        assert s.protocol_version == version
        init = s.initialize_result
        assert init is not None and init.protocol_version == version
        assert init.server_info.name == "cc-server"
        assert init.capabilities.tools is not None
        assert init.instructions and "workspace_id" in init.instructions
        if transport == "stdio":
            # `mcp -p REPO` binds the session to the fixture repository.
            assert f"'{REPO_NAME}'" in init.instructions
        await s.send_ping()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_newest_sdk_version(transport, endpoints):
    """The newest revision the SDK speaks (2026-07-28: server/discover, no handshake)."""
    assert LATEST_PROTOCOL_VERSION in MODERN_PROTOCOL_VERSIONS
    async with connect(transport, LATEST_PROTOCOL_VERSION, endpoints) as s:
        assert s.protocol_version == LATEST_PROTOCOL_VERSION
        assert s.discover_result is not None
        assert LATEST_PROTOCOL_VERSION in s.discover_result.supported_versions
        names = {t.name for t in (await s.list_tools()).tools}
        assert set(CODE_TOOLS) <= names
        got = await ok(s, LATEST_PROTOCOL_VERSION, "code_symbol", name="normalize", workspace_id=WORKSPACE)
        assert [m["location"] for m in got["matches"]] == [f"py/config.py:{line_of('py/config.py', 'def normalize')}"]


# ---------------------------------------------------------------- tools/list


@pytest.mark.parametrize("transport,version", transport_versions())
async def test_tools_list(transport, version, endpoints):
    async with connect(transport, version, endpoints) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        for name in CODE_TOOLS + OTHER_TOOLS:
            assert name in tools, f"{name} missing from tools/list: {sorted(tools)}"
            t = tools[name]
            assert t.description
            assert t.input_schema.get("type") == "object", (name, t.input_schema)
            props = t.input_schema.get("properties", {})
            if name in SCOPED:
                assert "workspace_id" in props, name
                assert "workspace_id" in t.input_schema.get("required", []), name
            if structured_expected(version):
                assert t.output_schema is not None, f"{name} has no outputSchema at {version}"
                assert t.output_schema.get("type") == "object", (name, t.output_schema)
            if version >= "2025-03-26":
                assert t.annotations is not None and t.annotations.read_only_hint is True, name
        assert "query" in tools["search_code"].input_schema["properties"]
        assert "symbol" in tools["code_callers"].input_schema["properties"]


# ---------------------------------------------------------------- tools/call: content


@pytest.mark.parametrize("transport,version", transport_versions())
async def test_code_tools(transport, version, endpoints):
    cfg = "py/config.py"
    ws = {"workspace_id": WORKSPACE}
    async with connect(transport, version, endpoints) as s:
        # search_code: BM25 over identifier words.
        got = await ok(s, version, "search_code", query="parse config", **ws)
        assert got["repos"] == [REPO_NAME]
        top = got["results"][0]
        assert top["rank"] == 1
        assert top["symbol"]["name"] == "parse_config"
        assert top["symbol"]["location"] == f"{cfg}:{line_of(cfg, 'def parse_config')}"
        assert top["symbol"]["repo"] == REPO_NAME and top["symbol"]["lang"] == "python"

        got = await ok(s, version, "search_code", query="user", lang=["typescript"], **ws)
        assert got["results"], got
        assert all(h["symbol"]["lang"] == "typescript" for h in got["results"])
        locs = {h["symbol"]["name"]: h["symbol"]["location"] for h in got["results"]}
        assert locs.get("fetchUser") == f"web/users.ts:{line_of('web/users.ts', 'function fetchUser')}", locs

        # code_symbol: exact name -> file:line, with source on request.
        got = await ok(s, version, "code_symbol", name="compute_total", include_source=True, **ws)
        [m] = got["matches"]
        assert m["location"] == f"core/src/lib.rs:{line_of('core/src/lib.rs', 'pub fn compute_total')}"
        assert m["kind"] == "function" and m["lang"] == "rust"
        assert "apply_discount(*x)" in m["source"]

        res = await s.call_tool("code_symbol", {"name": "normalize", **ws})
        got = payload(res, version)
        [norm] = got["matches"]
        assert norm["location"] == f"{cfg}:{line_of(cfg, 'def normalize')}"
        # From 2025-06-18 on, the symbol's cc:// address also comes as a resource link
        # (older clients only get it in the JSON: they may not know the block type).
        links = [c for c in res.content if c.type == "resource_link"]
        if version >= "2025-06-18":
            assert [str(l.uri) for l in links] == [norm["uri"]], res.content
            assert links[0].name == norm["qualified_name"]
        else:
            assert links == [], res.content

        # code_callers: who calls normalize, with the call site.
        got = await ok(s, version, "code_callers", symbol="normalize", **ws)
        assert got["symbol"]["name"] == "normalize"
        rows = {r["name"]: r for r in got["results"]}
        assert "parse_config" in {r["symbol"]["name"] for r in got["results"] if r["symbol"]}, rows
        [row] = [r for r in got["results"] if r["symbol"] and r["symbol"]["name"] == "parse_config"]
        assert row["distance"] == 1
        assert row["location"] == f"{cfg}:{line_of(cfg, 'def parse_config')}"
        assert f"{cfg}:{line_of(cfg, 'result[key] = normalize(raw)')}" in row["sites"]

        got = await ok(s, version, "code_callers", symbol="formatName", **ws)
        callers = {r["symbol"]["name"]: r["location"] for r in got["results"] if r["symbol"]}
        assert callers.get("fetchUser") == f"web/users.ts:{line_of('web/users.ts', 'function fetchUser')}", callers

        # code_callees: what compute_total calls.
        got = await ok(s, version, "code_callees", symbol="compute_total", **ws)
        callees = {r["symbol"]["name"]: r["location"] for r in got["results"] if r["symbol"]}
        assert callees.get("apply_discount") == f"core/src/lib.rs:{line_of('core/src/lib.rs', 'fn apply_discount')}", got

        got = await ok(s, version, "code_callees", symbol="UserService.load", **ws)
        callees = {r["symbol"]["name"] for r in got["results"] if r["symbol"]}
        assert "fetchUser" in callees, got

        # code_impact: the transitive callers of normalize, nearest first.
        got = await ok(s, version, "code_impact", symbol="normalize", **ws)
        dist = {r["symbol"]["name"]: r["distance"] for r in got["results"] if r["symbol"]}
        assert dist.get("parse_config") == 1, dist
        assert dist.get("load_settings") == 2, dist
        assert "main" in dist and dist["main"] >= 2, dist
        assert [r["distance"] for r in got["results"]] == sorted(r["distance"] for r in got["results"])
        assert got["truncated"] is False

        # code_read: a line range, and a symbol's source by id.
        start, end = line_of(cfg, "def normalize"), line_of(cfg, "return value.strip().lower()")
        got = await ok(s, version, "code_read", path=cfg, start_line=start, end_line=end, **ws)
        assert got["text"] == "\n".join(FIXTURE_FILES[cfg].splitlines()[start - 1 : end])
        assert (got["start_line"], got["end_line"]) == (start, end)
        assert got["total_lines"] == len(FIXTURE_FILES[cfg].splitlines())
        assert got["repo"] == REPO_NAME and got["path"] == cfg

        got = await ok(s, version, "code_read", symbol=norm["id"], **ws)
        assert got["text"].startswith("def normalize(value):")
        assert "return value.strip().lower()" in got["text"]


@pytest.mark.parametrize("transport,version", transport_versions())
async def test_workspace_and_discovery_tools(transport, version, endpoints):
    async with connect(transport, version, endpoints) as s:
        got = await ok(s, version, "list_workspaces")
        assert WORKSPACE in [w["id"] for w in got["workspaces"]], got

        got = await ok(s, version, "list_repos", workspace_id=WORKSPACE)
        assert got["workspace_id"] == WORKSPACE
        [repo] = [r for r in got["repos"] if r["name"] == REPO_NAME]
        assert repo["root"] == str(endpoints.indexed.repo)
        assert repo["files"] == 4
        assert repo["symbols"] >= 10
        assert "problem" not in repo

        got = await ok(s, version, "search_tool_bm25", query="callers of a symbol: incoming call sites")
        names = [t["name"] for t in got["tools"]]
        assert names and names[0] == "code_callers", names
        assert all(t["callable"] for t in got["tools"]), got
        assert all(t["input_schema"].get("type") == "object" for t in got["tools"])

        got = await ok(s, version, "search_tool_bm25", query="read source file lines", limit=3)
        assert len(got["tools"]) <= 3
        assert "code_read" in [t["name"] for t in got["tools"]], got

        got = await ok(s, version, "list_my_tools")
        mine = {t["name"]: t for t in got["tools"]}
        listed = {t.name for t in (await s.list_tools()).tools}
        assert set(mine) == listed
        assert mine["code_callers"]["workspace_scope"] == "required"
        assert mine["list_workspaces"]["workspace_scope"] == "global"


@pytest.mark.parametrize("transport", ["stdio"])
async def test_tool_search_finds_callers_for_a_callers_question(transport, endpoints):
    async with connect(transport, LATEST_HANDSHAKE_VERSION, endpoints) as s:
        got = await ok(s, LATEST_HANDSHAKE_VERSION, "search_tool_bm25", query="find who calls a function")
        names = [t["name"] for t in got["tools"]]
        assert names[0] == "code_callers", names


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("transport,version", transport_versions())
async def test_errors(transport, version, endpoints):
    async with connect(transport, version, endpoints) as s:
        # A bad argument type: a tool error naming the JSON pointer.
        _, e = await err(s, version, "search_code", query="parse", limit="ten", workspace_id=WORKSPACE)
        assert e["error"] == "invalid_input" and e["pointer"] == "/limit", e

        _, e = await err(s, version, "code_callers", symbol="normalize", depth=0, workspace_id=WORKSPACE)
        assert e["error"] == "invalid_input" and e["pointer"] == "/depth", e

        _, e = await err(s, version, "code_symbol", name="normalize", bogus=1, workspace_id=WORKSPACE)
        assert e["error"] == "invalid_input" and e["pointer"] == "/bogus", e

        _, e = await err(s, version, "code_symbol", workspace_id=WORKSPACE)
        assert e["error"] == "invalid_input" and e["pointer"] == "/name", e

        # A missing, an unknown and a superfluous workspace_id.
        _, e = await err(s, version, "code_symbol", name="normalize")
        assert e["error"] == "workspace" and e["pointer"] == "/workspace_id", e
        assert "list_workspaces" in e["message"]

        _, e = await err(s, version, "list_repos", workspace_id="no-such-workspace")
        assert e["error"] == "workspace" and e["pointer"] == "/workspace_id", e

        _, e = await err(s, version, "list_workspaces", workspace_id=WORKSPACE)
        assert e["error"] == "workspace", e

        # A symbol that is not there.
        _, e = await err(s, version, "code_callers", symbol="no_such_function_anywhere", workspace_id=WORKSPACE)
        assert e["error"] == "not_found" and e["pointer"] == "/symbol", e

        # An unknown tool is a protocol error, not a tool result.
        with pytest.raises(MCPError) as exc:
            await s.call_tool("no_such_tool", {})
        assert exc.value.code == -32602, exc.value
        assert "no_such_tool" in exc.value.message

        # The session still serves.
        got = await ok(s, version, "list_workspaces")
        assert got["workspaces"]


# ---------------------------------------------------------------- cancellation


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cancelled_call(transport, endpoints):
    """Cancels a tools/call right after it went out (so the server has not answered yet):
    the SDK sends notifications/cancelled for it; the session then keeps serving."""
    version = LATEST_HANDSHAKE_VERSION
    scopes: list[anyio.CancelScope] = []

    def hook(writer: RecordingWriter):
        def after_send(msg):
            if msg.get("method") == "tools/call" and scopes:
                scopes.pop().cancel()

        writer.after_send = after_send

    async with connect(transport, version, endpoints, writer_hook=hook) as s:
        for _ in range(3):
            with anyio.CancelScope() as scope:
                scopes.append(scope)
                await s.call_tool("code_impact", {"symbol": "normalize", "depth": 10, "workspace_id": WORKSPACE})
            assert scope.cancelled_caught, "the call was not cancelled"

        # Each cancelled request was followed by notifications/cancelled naming it.
        calls = [m["id"] for m in s.writer.sent if m.get("method") == "tools/call"]
        cancels = [m["params"]["requestId"] for m in s.writer.sent if m.get("method") == "notifications/cancelled"]
        assert len(calls) == 3 and cancels == calls, s.writer.sent

        # The server keeps serving this session.
        await s.send_ping()
        got = await ok(s, version, "code_callers", symbol="normalize", workspace_id=WORKSPACE)
        assert "parse_config" in [r["symbol"]["name"] for r in got["results"] if r["symbol"]]
        # A stray response to a cancelled request must not be taken for a later one.
        got = await ok(s, version, "list_workspaces")
        assert "workspaces" in got
