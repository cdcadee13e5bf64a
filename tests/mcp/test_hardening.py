"""The server as an attacker and a careless operator try it, through real clients: a
repository carrying links out of itself (over Streamable HTTP and stdio, through code_read,
include_source and resources/read), FIFOs that must not stall the server, bounded
sessions whose memory comes back when they expire, protocol details (-32602 for a
malformed tools/call, a JSON-RPC error for duplicate keys, DELETE answering 200), the
case of the bearer scheme, checkout paths shown to the operator only, and --max-mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2 as httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import _start_http, _stop
from test_wire import INIT, INITIALIZED, POST_HEADERS, client, jsonrpc_messages

pytestmark = pytest.mark.anyio

OPERATOR = "operator-secret-1"
AGENT = "agent-secret-1"


@pytest.fixture
def anyio_backend():
    return "asyncio"


# ---------------------------------------------------------------- a hostile repository


@pytest.fixture(scope="module")
def hostile(cc_bin, tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    repo, outside, private = base / "hostile", base / "outside", base / "private"
    for d in (repo / "src", repo / ".git", outside, private):
        d.mkdir(parents=True)
    (repo / "src/app.py").write_text("def main():\n    return helper()\n\n\ndef helper():\n    return 1\n")
    (repo / ".gitignore").write_text("local_settings.py\n")
    (repo / "local_settings.py").write_text("SECRET = 'gitignored'\n")
    (repo / ".env").write_text("TOKEN=hidden\n")
    (repo / ".git/config").write_text('[remote "origin"]\n\turl = https://user:pw@example.com/x\n')
    (outside / "secret.txt").write_text("outside-secret\n")
    (private / "keys.py").write_text("KEY = 'private-repo'\n")
    os.symlink("/", repo / "linkroot")
    os.symlink(outside / "secret.txt", repo / "leak.py")
    os.symlink(private, repo / "other")
    os.symlink("chain2.py", repo / "chain1.py")
    os.symlink(outside / "secret.txt", repo / "chain2.py")
    os.symlink("/dev/zero", repo / "zero.py")
    os.mkfifo(repo / "src/pipe.py")
    data = base / "data"
    for path, ws in ((repo, "default"), (private, "team")):
        r = subprocess.run(
            [cc_bin, "--data-dir", str(data), "--quiet", "index", str(path), "--workspace", ws], capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
    return repo, data


REFUSED = [
    "linkroot/etc/passwd",
    "linkroot/proc/self/environ",
    "leak.py",
    "other/keys.py",
    "chain1.py",
    "zero.py",
    "src/pipe.py",
    "local_settings.py",
    ".env",
    ".git/config",
]
LEAKS = ["outside-secret", "private-repo", "root:", "user:pw", "gitignored", "TOKEN="]


@pytest.fixture(scope="module")
def hostile_server(cc_bin, hostile, tmp_path_factory):
    repo, data = hostile
    srv = _start_http(cc_bin, data, tmp_path_factory.mktemp("log") / "hostile.log", [])
    yield srv
    _stop(srv)


@asynccontextmanager
async def session(transport: str, cc_bin: str, hostile, srv=None):
    repo, data = hostile
    if transport == "stdio":
        params = StdioServerParameters(command=cc_bin, args=["--data-dir", str(data), "mcp", "-p", str(repo)])
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w, read_timeout_seconds=60) as s:
                await s.initialize()
                yield s
    else:
        async with streamable_http_client(srv.mcp_url) as (r, w):
            async with ClientSession(r, w, read_timeout_seconds=60) as s:
                await s.initialize()
                yield s


def text_of(res) -> str:
    return " ".join(getattr(c, "text", "") or "" for c in res.content)


@pytest.mark.parametrize("transport", ["http", "stdio"])
async def test_reads_never_leave_the_repository(transport, cc_bin, hostile, hostile_server):
    async with session(transport, cc_bin, hostile, hostile_server) as s:
        res = await s.call_tool("code_read", {"workspace_id": "default", "path": "src/app.py"})
        assert not res.is_error and "def main" in text_of(res)
        for path in REFUSED:
            res = await s.call_tool("code_read", {"workspace_id": "default", "path": path})
            assert res.is_error, f"{path} was served: {text_of(res)[:200]}"
            assert not any(leak in text_of(res) for leak in LEAKS), f"{path}: {text_of(res)}"
            uri = f"cc://default/repos/hostile/files/{path}"
            with pytest.raises(Exception) as e:
                await s.read_resource(uri)
            assert not any(leak in str(e.value) for leak in LEAKS), f"{uri}: {e.value}"
        res = await s.call_tool("code_symbol", {"workspace_id": "default", "name": "helper", "include_source": True})
        assert not res.is_error and "return 1" in text_of(res)


async def test_fifos_do_not_stall_the_server(cc_bin, hostile, hostile_server):
    """Two reads of a FIFO at once (this machine has two cores, so two async workers), and a
    new client initializes meanwhile; a stall is caught by the deadline, not timed."""
    async with session("http", cc_bin, hostile, hostile_server) as s:
        results = {}

        async def read(i):
            results[i] = await s.call_tool("code_read", {"workspace_id": "default", "path": "src/pipe.py"})

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(read, 1)
                tg.start_soon(read, 2)
                async with session("http", cc_bin, hostile, hostile_server) as other:
                    assert (await other.list_tools()).tools
        assert all(r.is_error and "FIFO" in text_of(r) for r in results.values()), results


# ---------------------------------------------------------------- protocol details


def raw_session(c: httpx.Client, headers: dict | None = None) -> dict[str, str]:
    h = {**POST_HEADERS, **(headers or {})}
    r = c.post("/mcp", json=INIT, headers=h)
    assert r.status_code == 200, (r.status_code, r.text)
    h = {**h, "Mcp-Session-Id": r.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    assert c.post("/mcp", json=INITIALIZED, headers=h).status_code == 202
    return h


def answer(r: httpx.Response, id_: int) -> dict:
    [m] = [m for m in jsonrpc_messages(r) if m.get("id") == id_]
    return m


MALFORMED_CALLS = [
    pytest.param({}, "params.name: missing", id="no-name"),
    pytest.param({"name": 7}, "params.name: expected a string", id="number-name"),
    pytest.param({"name": "code_read", "arguments": [1, 2]}, "params.arguments: expected an object", id="array-arguments"),
    pytest.param({"name": "code_read", "arguments": "x"}, "params.arguments: expected an object", id="string-arguments"),
]


@pytest.mark.parametrize("params,why", MALFORMED_CALLS)
def test_a_malformed_tools_call_is_invalid_params_over_http(hostile_server, params, why):
    with client(hostile_server.base) as c:
        h = raw_session(c)
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}, headers=h)
        m = answer(r, 3)
        assert m["error"]["code"] == -32602 and why in m["error"]["message"], m


def test_a_malformed_tools_call_is_invalid_params_over_stdio(cc_bin, hostile):
    repo, data = hostile
    p = subprocess.Popen(
        [cc_bin, "--data-dir", str(data), "mcp", "-p", str(repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        def send(m):
            p.stdin.write(json.dumps(m) + "\n")
            p.stdin.flush()

        def read(id_):
            timer = threading.Timer(60, p.kill)
            timer.start()
            try:
                while True:
                    m = json.loads(p.stdout.readline())
                    if m.get("id") == id_:
                        return m
            finally:
                timer.cancel()

        send(INIT)
        assert "result" in read(1)
        send(INITIALIZED)
        for i, param in enumerate(MALFORMED_CALLS, start=10):
            params, why = param.values
            send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})
            m = read(i)
            assert m["error"]["code"] == -32602 and why in m["error"]["message"], m
    finally:
        p.kill()
        p.wait()


def test_duplicate_keys_get_a_jsonrpc_error(hostile_server):
    with client(hostile_server.base) as c:
        h = raw_session(c)
        body = b'{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}'
        r = c.post("/mcp", content=body, headers=h)
        assert r.status_code == 400 and r.headers["content-type"].startswith("application/json"), (r.status_code, r.text)
        assert error_code_of(r) == -32600 and "appears twice" in r.text, r.text


def error_code_of(r: httpx.Response):
    return r.json()["error"]["code"]


def test_an_out_of_range_number_names_its_field(hostile_server):
    with client(hostile_server.base) as c:
        h = raw_session(c)
        args = {"workspace_id": "default", "path": "src/app.py", "start_line": 2**40}
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "code_read", "arguments": args}}, headers=h)
        res = answer(r, 6)["result"]
        assert res["isError"] and res["structuredContent"]["pointer"] == "/start_line", res


def test_delete_answers_200(hostile_server):
    with client(hostile_server.base) as c:
        h = raw_session(c)
        r = c.delete("/mcp", headers=h)
        assert r.status_code == 200, (r.status_code, r.text)
        assert c.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=h).status_code == 404


# ---------------------------------------------------------------- tokens, paths, ceilings


@pytest.fixture(scope="module")
def token_server(cc_bin, hostile, tmp_path_factory):
    repo, data = hostile
    extra = ["--token", f"agent={AGENT}", "--operator-token", OPERATOR, "--max-sessions-per-principal", "3", "--max-sessions", "5"]
    srv = _start_http(cc_bin, data, tmp_path_factory.mktemp("log") / "token.log", extra)
    yield srv
    _stop(srv)


def call_tool(c: httpx.Client, h: dict, name: str, args: dict, id_: int = 7) -> dict:
    r = c.post("/mcp", json={"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": args}}, headers=h)
    return answer(r, id_)["result"]


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_bearer_scheme_is_case_insensitive(token_server, scheme):
    with client(token_server.base) as c:
        h = raw_session(c, {"Authorization": f"{scheme} {AGENT}"})
        c.delete("/mcp", headers=h)


def test_checkout_paths_are_for_the_operator_only(token_server, hostile):
    repo, _ = hostile
    with client(token_server.base) as c:
        h = raw_session(c, {"Authorization": f"Bearer {AGENT}"})
        [r] = [r for r in call_tool(c, h, "list_repos", {"workspace_id": "default"})["structuredContent"]["repos"] if r["name"] == "hostile"]
        assert "root" not in r, r
        c.delete("/mcp", headers=h)
        h = raw_session(c, {"Authorization": f"Bearer {OPERATOR}"})
        [r] = [r for r in call_tool(c, h, "list_repos", {"workspace_id": "default"})["structuredContent"]["repos"] if r["name"] == "hostile"]
        assert r["root"] == str(repo.resolve()), r
        c.delete("/mcp", headers=h)


def test_sessions_are_capped_per_principal_and_in_total(token_server):
    with client(token_server.base) as c:
        agent = [raw_session(c, {"Authorization": f"Bearer {AGENT}"}) for _ in range(3)]
        r = c.post("/mcp", json=INIT, headers={**POST_HEADERS, "Authorization": f"Bearer {AGENT}"})
        assert r.status_code == 503 and "principal 'agent' has 3 sessions" in r.json()["error"]["message"], r.text
        ops = [raw_session(c, {"Authorization": f"Bearer {OPERATOR}"}) for _ in range(2)]
        r = c.post("/mcp", json=INIT, headers={**POST_HEADERS, "Authorization": f"Bearer {OPERATOR}"})
        assert r.status_code == 503 and "5 sessions open" in r.json()["error"]["message"], r.text
        # Closing one makes room.
        assert c.delete("/mcp", headers=agent[0]).status_code == 200
        h = raw_session(c, {"Authorization": f"Bearer {AGENT}"})
        for s in agent[1:] + ops + [h]:
            assert c.delete("/mcp", headers=s).status_code == 200


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_expired_sessions_give_their_memory_back(cc_bin, hostile, tmp_path):
    """5,000 sessions opened and left idle: they expire, and the server's resident memory
    comes back to within 20% of what it was before them (a memory figure, not a time)."""
    repo, data = hostile
    extra = ["--max-sessions", "10000", "--max-sessions-per-principal", "10000", "--session-idle-secs", "3"]
    srv = _start_http(cc_bin, data, tmp_path / "sessions.log", extra)
    try:
        with client(srv.base) as c:
            raw_session(c)  # warm: the first session's one-time allocations
            time.sleep(4)
            before = rss_kib(srv.proc.pid)
            for _ in range(5000):
                r = c.post("/mcp", json=INIT, headers=POST_HEADERS)
                assert r.status_code == 200, r.text
            peak = rss_kib(srv.proc.pid)
            deadline = time.monotonic() + 60
            after = peak
            while time.monotonic() < deadline:
                time.sleep(1)
                after = rss_kib(srv.proc.pid)
                if after <= before * 1.2:
                    break
            assert after <= before * 1.2, f"RSS before {before} KiB, with 5,000 sessions {peak} KiB, after expiry {after} KiB"
            # The server still serves.
            raw_session(c)
    finally:
        _stop(srv)


async def test_max_mode_is_a_ceiling(cc_bin, hostile, tmp_path):
    repo, data = hostile
    srv = _start_http(cc_bin, data, tmp_path / "plan.log", ["--max-mode", "plan"])
    try:
        with client(srv.base) as c:
            r = c.post("/mcp", json=INIT, headers={**POST_HEADERS, "Cc-Mode": "chat"})
            assert "--max-mode plan" in r.text, (r.status_code, r.text)
            h = raw_session(c)
            res = call_tool(c, h, "set_mode", {"mode": "chat"})
            assert res["isError"] and "--max-mode plan" in json.dumps(res), res
            res = call_tool(c, h, "list_my_tools", {}, id_=8)
            assert res["structuredContent"]["mode"] == "plan", res
    finally:
        _stop(srv)
