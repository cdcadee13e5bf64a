"""Policy with the real Python MCP SDK against the real cc-server: conversation modes
held by the server, approvals through the confirmation port (elicitation approve,
decline, cancel and timeout on every transport; the operator's queue over HTTP and the
CLI; clients on 2026-07-28 get the queue; no approver = denied), principals bound to
their sessions and workspaces, and 64 concurrent sessions of two principals that never
see each other's results or notifications.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_PROTOCOL_VERSION

from conftest import FIXTURE_FILES, REPO_NAME, WORKSPACE, HttpServer, _start_http, _stop

pytestmark = pytest.mark.anyio

ALICE, ALICE_TOKEN = "alice", "alice-secret-token"  # workspace "default" (the fixture repo)
BOB, BOB_TOKEN = "bob", "bob-secret-token"  # workspace "team" (the team repo)
OPERATOR_TOKEN = "operator-secret-token"
TEAM_WS, TEAM_REPO = "team", "teamrepo"
TEAM_FILES = {"team/jobs.py": "def team_only_job(n):\n    \"\"\"A job only the team workspace has.\"\"\"\n    return n + 1\n"}
TIMEOUT = 2  # --approval-timeout, seconds


@pytest.fixture(scope="module")
def cc_bin(fixtures_bin):
    """This module's servers serve the conformance set (its approval and guardrail
    fixtures): the product's command line with them, `cc-server-conformance`."""
    return fixtures_bin


@pytest.fixture
def anyio_backend():
    return "asyncio"


# ---------------------------------------------------------------- servers


@dataclass
class PolicyData:
    data: Path
    repo: Path
    tokens: Path


@pytest.fixture(scope="module")
def policy_data(cc_bin, tmp_path_factory) -> PolicyData:
    """A data dir of its own: the fixture repo in `default`, a team repo in `team`."""
    base = tmp_path_factory.mktemp("policy")
    data = base / "data"
    for name, files, ws in [(REPO_NAME, FIXTURE_FILES, WORKSPACE), (TEAM_REPO, TEAM_FILES, TEAM_WS)]:
        repo = base / name
        for rel, text in files.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
        r = subprocess.run(
            [cc_bin, "--data-dir", str(data), "--quiet", "index", str(repo), "--workspace", ws],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
    tokens = base / "tokens"
    tokens.write_text(f"# principals\n{ALICE} {ALICE_TOKEN} {WORKSPACE}\n{BOB} {BOB_TOKEN} {TEAM_WS}\n")
    return PolicyData(data=data, repo=(base / REPO_NAME).resolve(), tokens=tokens)


@pytest.fixture(scope="module")
def policy_server(cc_bin, policy_data, tmp_path_factory):
    """Two principals, the operator's queue, the conformance fixtures, a short timeout."""
    srv = _start_http(
        cc_bin,
        policy_data.data,
        tmp_path_factory.mktemp("log") / "policy.log",
        [
            "--tools", "default,conformance",
            "--tokens-file", str(policy_data.tokens),
            "--operator-token", OPERATOR_TOKEN,
            "--approval-timeout", str(TIMEOUT),
        ],
    )  # fmt: skip
    yield srv
    _stop(srv)
    assert srv.proc.returncode in (0, -15), srv.log.read_text()


@pytest.fixture(scope="module")
def bare_server(cc_bin, policy_data, tmp_path_factory):
    """No tokens and no approval queue: nobody but an eliciting client can approve."""
    srv = _start_http(
        cc_bin, policy_data.data, tmp_path_factory.mktemp("log") / "bare.log", ["--tools", "default,conformance"]
    )
    yield srv
    _stop(srv)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---------------------------------------------------------------- clients


class Recorder:
    """An elicitation callback that answers as told, and remembers what it was asked;
    plus every notification the session received."""

    def __init__(self, answer: str = "accept", approve: bool = True, delay: float = 0.0):
        self.answer, self.approve, self.delay = answer, approve, delay
        self.asked: list[types.ElicitRequestParams] = []
        self.notifications: list[Any] = []

    async def elicit(self, context, params: types.ElicitRequestParams):
        self.asked.append(params)
        if self.delay:
            await anyio.sleep(self.delay)
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": self.approve})
        return types.ElicitResult(action=self.answer)

    async def on_message(self, message) -> None:
        if isinstance(message, Exception):
            return
        self.notifications.append(message)


@asynccontextmanager
async def session(
    transport: str,
    *,
    srv: HttpServer | None = None,
    token: str | None = None,
    mode: str | None = None,
    recorder: Recorder | None = None,
    elicit: bool = True,
    version: str = LATEST_HANDSHAKE_VERSION,
    stdio_args: list[str] | None = None,
    cc_bin: str | None = None,
    data: PolicyData | None = None,
):
    recorder = recorder or Recorder()
    headers: dict[str, str] = {}
    if token:
        headers.update(auth(token))
    if mode:
        headers["Cc-Mode"] = mode
    if transport == "stdio":
        params = StdioServerParameters(
            command=cc_bin,
            args=["--data-dir", str(data.data), "mcp", "-p", str(data.repo), "--tools", "default,conformance",
                  "--approval-timeout", str(TIMEOUT), *(stdio_args or [])],
            env={"CC_LOG": os.environ.get("CC_LOG", "warn")},
        )  # fmt: skip
        cm = stdio_client(params)
    elif transport == "http":
        cm = streamable_http_client(srv.mcp_url, http_client=create_mcp_http_client(headers=headers))
    elif transport == "sse":
        cm = sse_client(srv.sse_url, headers=headers, timeout=30)
    else:
        raise ValueError(transport)
    async with cm as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=60,
            elicitation_callback=recorder.elicit if elicit else None,
            message_handler=recorder.on_message,
        ) as s:
            if version == LATEST_PROTOCOL_VERSION:
                await s.discover()
            else:
                await s.initialize()
            s.recorder = recorder
            yield s


def structured(res: types.CallToolResult) -> dict[str, Any]:
    if res.structured_content is not None:
        return res.structured_content
    for block in reversed(res.content):
        if block.type == "text":
            try:
                return json.loads(block.text)
            except ValueError:
                continue
    raise AssertionError(f"no JSON in {res}")


async def call_ok(s: ClientSession, tool: str, **args) -> dict[str, Any]:
    res = await s.call_tool(tool, args)
    assert not res.is_error, f"{tool}({args}) failed: {res.content}"
    return structured(res)


async def call_err(s: ClientSession, tool: str, **args) -> dict[str, Any]:
    res = await s.call_tool(tool, args)
    assert res.is_error, f"{tool}({args}) should have failed: {res}"
    assert res.content[0].type == "text" and res.content[0].text
    return structured(res)


def key() -> str:
    return f"k-{uuid.uuid4().hex}"


# ---------------------------------------------------------------- modes


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
async def test_the_connection_opens_the_conversation_in_a_mode(transport, policy_server, policy_data, cc_bin):
    kw = dict(srv=policy_server, token=ALICE_TOKEN, cc_bin=cc_bin, data=policy_data)
    if transport == "stdio":
        kw["stdio_args"] = ["--mode", "plan"]
    else:
        kw["mode"] = "plan"
    async with session(transport, **kw) as s:
        listed = {t.name for t in (await s.list_tools()).tools}
        assert {"code_callers", "exit_plan_mode", "set_mode", "list_repos"} <= listed, listed
        assert "test_approval_counter" not in listed and "test_simple_text" not in listed, listed
        mine = await call_ok(s, "list_my_tools")
        assert mine["mode"] == "plan" and {t["name"] for t in mine["tools"]} == listed
        # Blocked in tools/call too, with the reason and what would allow it.
        e = await call_err(s, "test_approval_counter", key=key())
        assert e["error"] == "mode" and e["data"] == {"mode": "plan", "allowed_in": ["chat"]}, e
        assert "exit_plan_mode" in e["message"], e
        hits = (await call_ok(s, "search_tool_bm25", query="approval counter", limit=50))["tools"]
        [hit] = [h for h in hits if h["name"] == "test_approval_counter"]
        assert hit["callable"] is False and "not allowed in plan mode" in hit["reason"], hit
        # Read tools work.
        got = await call_ok(s, "code_symbol", name="normalize", workspace_id=WORKSPACE)
        assert got["matches"][0]["name"] == "normalize"


async def test_a_bad_mode_header_is_refused(policy_server):
    with httpx.Client(base_url=policy_server.base, timeout=30) as c:
        r = c.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
            headers={**auth(ALICE_TOKEN), "Cc-Mode": "yolo", "Accept": "application/json, text/event-stream"},
        )  # fmt: skip
        assert "unknown mode 'yolo'" in r.text, (r.status_code, r.text)


async def test_set_mode_changes_this_conversation_and_notifies_only_it(policy_server):
    async with session("http", srv=policy_server, token=ALICE_TOKEN) as s1, session(
        "http", srv=policy_server, token=ALICE_TOKEN
    ) as s2:
        before = {t.name for t in (await s1.list_tools()).tools}
        got = await call_ok(s1, "set_mode", mode="review")
        assert got == {"mode": "review", "previous": "chat", "changed": True}
        await anyio.sleep(0.3)
        changed = [n for n in s1.recorder.notifications if isinstance(n, types.ToolListChangedNotification)]
        assert len(changed) == 1, s1.recorder.notifications
        after = {t.name for t in (await s1.list_tools()).tools}
        assert after < before and "exit_plan_mode" not in after, after
        # The other conversation stays in chat and heard nothing.
        assert (await call_ok(s2, "list_my_tools"))["mode"] == "chat"
        assert not [n for n in s2.recorder.notifications if isinstance(n, types.ToolListChangedNotification)]
        # Leaving review asks for an approval: here the user declines, so it stays.
        s1.recorder.answer = "decline"
        e = await call_err(s1, "set_mode", mode="chat")
        assert e["error"] == "approval_denied" and "declined" in e["message"], e
        assert (await call_ok(s1, "list_my_tools"))["mode"] == "review"
        s1.recorder.answer, s1.recorder.approve = "accept", True
        assert (await call_ok(s1, "set_mode", mode="chat"))["mode"] == "chat"


# ---------------------------------------------------------------- approvals by elicitation


def transports():
    return [pytest.param(t, id=t) for t in ("stdio", "http", "sse")]


@asynccontextmanager
async def eliciting(transport, policy_server, policy_data, cc_bin, recorder):
    async with session(
        transport, srv=policy_server, token=ALICE_TOKEN, recorder=recorder, cc_bin=cc_bin, data=policy_data
    ) as s:
        yield s


@pytest.mark.parametrize("transport", transports())
async def test_elicitation_approve_runs_the_call(transport, policy_server, policy_data, cc_bin):
    rec = Recorder("accept", approve=True)
    async with eliciting(transport, policy_server, policy_data, cc_bin, rec) as s:
        k = key()
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1
        [asked] = rec.asked
        assert "test_approval_counter" in asked.message and k in asked.message, asked.message
        assert "requires approval" in asked.message
        assert asked.requested_schema["properties"]["approve"]["type"] == "boolean"
        # The guardrail prompt (packageInstall in chat) goes through the same port.
        assert (await call_ok(s, "test_action_class_prompt", key=k))["count"] == 2
        assert "packageInstall" in rec.asked[1].message


@pytest.mark.parametrize("transport", transports())
@pytest.mark.parametrize(
    "answer,approve,status,words",
    [
        pytest.param("decline", True, "declined", "declined", id="decline"),
        pytest.param("accept", False, "declined", "did not approve", id="accept-without-approve"),
        pytest.param("cancel", True, "cancelled", "cancelled", id="cancel"),
    ],
)
async def test_elicitation_refusals_deny_the_call(
    transport, answer, approve, status, words, policy_server, policy_data, cc_bin
):
    rec = Recorder(answer, approve=approve)
    async with eliciting(transport, policy_server, policy_data, cc_bin, rec) as s:
        k = key()
        e = await call_err(s, "test_approval_counter", key=k)
        assert e["error"] == "approval_denied" and e["data"]["status"] == status, e
        assert words in e["message"] and "did not run" in e["message"], e
        assert len(rec.asked) == 1
        # It did not run: the first approved call counts 1.
        rec.answer, rec.approve = "accept", True
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1


@pytest.mark.parametrize("transport", transports())
async def test_elicitation_timeout_denies_the_call(transport, policy_server, policy_data, cc_bin):
    rec = Recorder("accept", approve=True, delay=TIMEOUT + 2)
    async with eliciting(transport, policy_server, policy_data, cc_bin, rec) as s:
        k = key()
        e = await call_err(s, "test_approval_counter", key=k)
        assert e["error"] == "approval_denied" and e["data"]["status"] == "timeout", e
        assert f"within {TIMEOUT} s" in e["message"], e
        # The late "yes" approves nothing; the session still serves.
        await anyio.sleep(2.5)
        rec.delay = 0
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1


# ---------------------------------------------------------------- the operator's queue


def operator(srv: HttpServer) -> httpx.Client:
    return httpx.Client(base_url=srv.base, timeout=30, headers=auth(OPERATOR_TOKEN))


async def test_pending_approval_decided_over_http(policy_server):
    async with session("http", srv=policy_server, token=ALICE_TOKEN, elicit=False) as s:
        k = key()
        e = await call_err(s, "test_approval_counter", key=k)
        assert e["error"] == "approval_pending", e
        aid = e["data"]["approval_id"]
        assert f"cc-server approvals approve {aid}" in e["message"] and "same arguments" in e["message"], e
        with httpx.Client(base_url=policy_server.base, timeout=30) as c:
            # The queue is the operator's: an agent's token is not enough.
            assert c.get("/approvals", headers=auth(ALICE_TOKEN)).status_code == 401
            assert c.post(f"/approvals/{aid}/approve", headers=auth(ALICE_TOKEN)).status_code == 401
        with operator(policy_server) as op:
            listed = op.get("/approvals").json()["approvals"]
            [a] = [a for a in listed if a["id"] == aid]
            assert (a["tool"], a["principal"], a["arguments"], a["status"]) == (
                "test_approval_counter", ALICE, {"key": k}, "pending")  # fmt: skip
            assert "requires approval" in a["why"] and a["conversation"]
            # Still pending: the same call answers with the same approval.
            assert (await call_err(s, "test_approval_counter", key=k))["data"]["approval_id"] == aid
            r = op.post(f"/approvals/{aid}/approve", json={"reason": "fine"})
            assert r.status_code == 200 and r.json()["status"] == "approved", r.text
            assert op.post(f"/approvals/{aid}/reject").status_code == 409
            assert op.post("/approvals/ap-nope/approve").status_code == 404
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1
        # Used once.
        assert (await call_err(s, "test_approval_counter", key=k))["error"] == "approval_pending"


async def test_pending_approval_decided_with_the_cli(policy_server, policy_data, cc_bin):
    def cli(*args):
        r = subprocess.run(
            [cc_bin, "--data-dir", str(policy_data.data), "approvals", *args], capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r.stderr
        return r.stdout

    async with session("http", srv=policy_server, token=ALICE_TOKEN, elicit=False) as s:
        k = key()
        aid = (await call_err(s, "test_approval_counter", key=k))["data"]["approval_id"]
        listed = json.loads(cli("list", "--json"))["approvals"]
        assert aid in [a["id"] for a in listed]
        assert aid in cli("list")
        assert "rejected" in cli("reject", aid, "--reason", "not in prod")
        e = await call_err(s, "test_approval_counter", key=k)
        assert e["error"] == "approval_denied" and "not in prod" in e["message"], e
        # A fresh request, approved from the command line, runs.
        aid = (await call_err(s, "test_approval_counter", key=k))["data"]["approval_id"]
        assert "approved" in cli("approve", aid)
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1
        assert aid in cli("list", "--all")


async def test_a_2026_client_gets_the_pending_path_not_elicitation(policy_server):
    """Protocol 2026-07-28 has no server-to-client requests: even a client with an
    elicitation callback gets a pending approval, and resumes after the operator."""
    rec = Recorder("accept", approve=True)
    async with session(
        "http", srv=policy_server, token=ALICE_TOKEN, recorder=rec, version=LATEST_PROTOCOL_VERSION
    ) as s:
        assert s.protocol_version == LATEST_PROTOCOL_VERSION
        k = key()
        e = await call_err(s, "test_approval_counter", key=k)
        assert e["error"] == "approval_pending", e
        assert rec.asked == []
        with operator(policy_server) as op:
            assert op.post(f"/approvals/{e['data']['approval_id']}/approve").status_code == 200
        assert (await call_ok(s, "test_approval_counter", key=k))["count"] == 1
        # Stateless: no session holds a mode, so changing it is refused, saying why.
        e = await call_err(s, "set_mode", mode="plan")
        assert e["error"] == "mode" and "stateless" in e["message"], e


async def test_no_approver_means_denied(bare_server):
    async with session("http", srv=bare_server, elicit=False) as s:
        e = await call_err(s, "test_approval_counter", key=key())
        assert e["error"] == "approval_denied" and e["data"]["status"] == "no_approver", e
        assert "no approver is connected" in e["message"]
    with httpx.Client(base_url=bare_server.base, timeout=30) as c:
        assert c.get("/approvals").status_code == 404, "no queue endpoint without --operator-token"


# ---------------------------------------------------------------- principals

POST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def init_session(c: httpx.Client, token: str) -> str:
    r = c.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        headers={**POST_HEADERS, **auth(token)},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    return r.headers["mcp-session-id"]


def test_a_session_is_bound_to_its_principal(policy_server):
    with httpx.Client(base_url=policy_server.base, timeout=30) as c:
        sid = init_session(c, ALICE_TOKEN)
        h = {**POST_HEADERS, "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
        r = c.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**h, **auth(ALICE_TOKEN)})
        assert r.status_code == 202, r.text
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        # Bob's token on Alice's session: as if it did not exist.
        r = c.post("/mcp", json=ping, headers={**h, **auth(BOB_TOKEN)})
        assert r.status_code == 404, (r.status_code, r.text)
        with c.stream("GET", "/mcp", headers={**h, **auth(BOB_TOKEN), "Accept": "text/event-stream"}) as g:
            assert g.status_code == 404
        assert c.delete("/mcp", headers={**h, **auth(BOB_TOKEN)}).status_code == 404
        # No token: 401, whatever the session.
        assert c.post("/mcp", json=ping, headers=h).status_code == 401
        # Alice's own requests still work.
        r = c.post("/mcp", json=ping, headers={**h, **auth(ALICE_TOKEN)})
        assert r.status_code == 200 and '"result"' in r.text, r.text


def test_an_sse_session_takes_messages_only_from_its_principal(policy_server):
    with httpx.Client(base_url=policy_server.base, timeout=30) as c:
        with c.stream("GET", "/sse", headers=auth(ALICE_TOKEN)) as s:
            assert s.status_code == 200
            # Keep the line iterator alive: dropping it closes the stream (and the session).
            lines = s.iter_lines()
            endpoint = next(ln for ln in lines if ln.startswith("data:"))[5:].strip()
            assert "sessionId=" in endpoint, endpoint
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
            r = c.post(endpoint, json=init, headers=auth(BOB_TOKEN))
            assert r.status_code == 404, (r.status_code, r.text)
            r = c.post(endpoint, json=init, headers=auth(ALICE_TOKEN))
            assert r.status_code == 202, (r.status_code, r.text)
            answer = next(ln for ln in lines if ln.startswith("data:") and '"result"' in ln)
            assert json.loads(answer[5:])["id"] == 1


async def test_a_principal_sees_only_its_workspaces(policy_server):
    async with session("http", srv=policy_server, token=BOB_TOKEN) as s:
        got = await call_ok(s, "list_workspaces")
        assert [w["id"] for w in got["workspaces"]] == [TEAM_WS]
        got = await call_ok(s, "list_repos", workspace_id=TEAM_WS)
        assert [r["name"] for r in got["repos"]] == [TEAM_REPO]
        e = await call_err(s, "code_symbol", name="normalize", workspace_id=WORKSPACE)
        assert e["error"] == "workspace" and f"no workspace '{WORKSPACE}'" in e["message"], e
        with pytest.raises(Exception):
            await s.read_resource(f"cc://{WORKSPACE}/repos/{REPO_NAME}/files/py/config.py")
    async with session("http", srv=policy_server, token=ALICE_TOKEN) as s:
        assert [w["id"] for w in (await call_ok(s, "list_workspaces"))["workspaces"]] == [WORKSPACE]
        res = await s.read_resource(f"cc://{WORKSPACE}/repos/{REPO_NAME}/files/py/config.py")
        assert "def normalize" in res.contents[0].text


# ---------------------------------------------------------------- 64 concurrent sessions


async def test_64_concurrent_sessions_never_see_each_others_results(policy_server):
    """32 sessions of Alice (workspace default) and 32 of Bob (workspace team), all at
    once: every answer matches its own request, progress notifications carry only the
    session's own tokens, and a mode change notifies only the session that made it."""
    failures: list[str] = []
    rounds = 3

    async def one(i: int) -> None:
        alice = i % 2 == 0
        token, ws, repo = (ALICE_TOKEN, WORKSPACE, REPO_NAME) if alice else (BOB_TOKEN, TEAM_WS, TEAM_REPO)
        symbol, other_symbol = ("normalize", "team_only_job") if alice else ("team_only_job", "normalize")
        mine: set[str] = set()
        switch = i % 4 < 2  # half of each principal's sessions change mode
        async with session("http", srv=policy_server, token=token) as s:
            for r in range(rounds):
                got = await call_ok(s, "list_repos", workspace_id=ws)
                if got["workspace_id"] != ws or [x["name"] for x in got["repos"]] != [repo]:
                    failures.append(f"session {i}: list_repos answered {got}")
                got = await call_ok(s, "code_symbol", name=symbol, workspace_id=ws)
                if [m["name"] for m in got["matches"]] != [symbol] or got["matches"][0]["repo"] != repo:
                    failures.append(f"session {i}: code_symbol answered {got}")
                got = await call_ok(s, "code_symbol", name=other_symbol, workspace_id=ws)
                if got["matches"]:
                    failures.append(f"session {i}: sees {other_symbol}: {got}")
                tok = f"s{i}-r{r}-{uuid.uuid4().hex[:8]}"
                mine.add(tok)
                res = await s.call_tool("test_tool_with_progress", {}, meta={"progressToken": tok})
                if res.is_error:
                    failures.append(f"session {i}: progress tool failed {res}")
            if switch:
                await call_ok(s, "set_mode", mode="plan")
            await anyio.sleep(0.5)
            progress = [n for n in s.recorder.notifications if isinstance(n, types.ProgressNotification)]
            foreign = [n.params.progress_token for n in progress if n.params.progress_token not in mine]
            if foreign:
                failures.append(f"session {i}: progress of other sessions: {foreign}")
            seen = {n.params.progress_token for n in progress}
            if seen != mine:
                failures.append(f"session {i}: progress tokens {seen}, sent {mine}")
            changed = [n for n in s.recorder.notifications if isinstance(n, types.ToolListChangedNotification)]
            if len(changed) != (1 if switch else 0):
                failures.append(f"session {i}: {len(changed)} tools/list_changed (changed mode: {switch})")
            mode = (await call_ok(s, "list_my_tools"))["mode"]
            if mode != ("plan" if switch else "chat"):
                failures.append(f"session {i}: mode {mode}")

    with anyio.fail_after(240):
        async with anyio.create_task_group() as tg:
            for i in range(64):
                tg.start_soon(one, i)
    assert not failures, "\n".join(failures[:20])
