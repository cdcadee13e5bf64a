"""Agents as real processes, through real clients, on both store backends.

cc-server starts each run of an agent as a process (tests/mcp/agent.py, a real MCP
client on the official Python SDK, runtime family mcp-cli) that calls back over
Streamable HTTP with its per-run token. The flows: ask_agent → dispatch → answer; the
timeout; capacity queueing (capacity 1, three asks); consult_agent choosing by skills;
send_to_agent waking an agent; a subscription hearing each new message; todos that outlive
a reconnect and a restart; presence and health; the org chart; worktrees of concurrent runs
that never see each other's changes; kill -9 of the server mid-run (and 50 dispatches)
leaving no process once it has restarted, the runs marked abandoned; an agent of workspace
A that can see, message or read nothing of workspace B; each tool's bad input. PostgreSQL:
Debian's server started by tests/run (CC_TEST_POSTGRES_URL), a database per module.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import FIXTURE_FILES, HttpServer, _start_http, _stop

pytestmark = pytest.mark.anyio

OPERATOR = "operator-agents-token"
ALPHA, BETA = "alpha", "beta"
AGENT_PY = str(Path(__file__).with_name("agent.py"))
PYTHON = sys.executable  # the venv's: it has the MCP SDK


@pytest.fixture
def anyio_backend():
    return "asyncio"


# ---------------------------------------------------------------- the hub


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


def postgres_database() -> str:
    admin = os.environ.get("CC_TEST_POSTGRES_URL")
    if not admin:
        pytest.fail("CC_TEST_POSTGRES_URL is not set: tests/run starts a throwaway PostgreSQL", pytrace=False)
    db = f"agents_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    return admin.rsplit("/", 1)[0] + "/" + db


@dataclass
class Hub:
    cc_bin: str
    data: Path
    repo: Path
    store: list[str]  # ["--store", URL] or []
    backend: str
    srv: HttpServer | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    reports: Path | None = None

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run(
            [self.cc_bin, "--data-dir", str(self.data), *self.store, "--quiet", *args],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if check:
            assert r.returncode == 0, f"{args} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
        return r

    def start(self) -> None:
        self.srv = _start_http(
            self.cc_bin, self.data, self.data.parent / f"serve-{time.monotonic_ns()}.log",
            [*self.store, "--operator-token", OPERATOR],
        )  # fmt: skip

    def stop(self) -> None:
        if self.srv:
            _stop(self.srv)

    def show(self, name: str, ws: str = ALPHA, runs: str = "10") -> dict:
        return json.loads(self.cli("agents", "show", name, "--workspace", ws, "--runs", runs, "--json").stdout)

    def add_agent(self, name: str, ws: str = ALPHA, **fields: str) -> str:
        args = ["agents", "add", name, "--workspace", ws]
        for k, v in fields.items():
            args += [f"--{k.replace('_', '-')}", v]
        token = self.cli(*args).stdout.strip()
        self.tokens[name] = token
        self.ids[name] = self.show(name, ws)["agent"]["id"]
        return token


PROFILES = {
    # name: (fixed arguments, extra `profiles add` flags)
    "echo": ([], ["--wake-on-message"]),
    "slow": (["--delay", "1.5"], []),
    "hang": (["--hang"], ["--timeout", "6"]),
    "stuck": (["--hang"], ["--timeout", "600"]),
    "report": (["--report", "{reports}", "--edit", "--delay", "1"], []),
    "serve": (["--serve"], []),
    "beta": ([], []),
}


def make_hub(cc_bin: str, base: Path, backend: str) -> Hub:
    repo = base / "app"
    for rel, text in FIXTURE_FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "fixture")
    other = base / "other"
    (other / "b").mkdir(parents=True)
    (other / "b/secret.py").write_text("def beta_only_secret():\n    return 42\n")
    data = base / "data"
    data.mkdir()
    # The operator's configuration: the programs runtime profiles may start.
    (data / "config.toml").write_text(
        f'[runtimes]\nallow = ["{PYTHON}"]\nrun_timeout_secs = 120\n\n[health]\nmissing_after_secs = 3\noffline_after_secs = 8\n'
    )
    store = ["--store", postgres_database()] if backend == "postgres" else []
    hub = Hub(cc_bin=cc_bin, data=data, repo=repo, store=store, backend=backend, reports=base / "reports.jsonl")
    hub.cli("index", str(repo), "--workspace", ALPHA)
    hub.cli("index", str(other), "--workspace", BETA)
    for name, (fixed, flags) in PROFILES.items():
        fixed = [a.replace("{reports}", str(hub.reports)) for a in fixed]
        ws = BETA if name == "beta" else ALPHA
        hub.cli("profiles", "add", name, "--workspace", ws, "--family", "mcp-cli", *flags, "--", PYTHON, AGENT_PY, *fixed)
    hub.add_agent("lead", runtime="echo", skills="planning", description="leads the team")
    hub.add_agent("echo-1", runtime="echo", skills="python,configuration parsing", reports_to="lead",
                  description="answers questions about the Python configuration code")  # fmt: skip
    hub.add_agent("rusty", runtime="echo", skills="rust,cart totals,discounts", reports_to="lead",
                  description="knows the Rust cart code")  # fmt: skip
    hub.add_agent("slow-1", runtime="slow", capacity="1", reports_to="echo-1")
    hub.add_agent("hanger", runtime="hang")
    hub.add_agent("stuck", runtime="stuck", capacity="8")
    hub.add_agent("worker", runtime="report", capacity="2")
    hub.add_agent("server", runtime="serve")
    hub.add_agent("beta-agent", ws=BETA, runtime="beta")
    hub.start()
    return hub


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def hub(request, cc_bin, tmp_path_factory):
    h = make_hub(cc_bin, tmp_path_factory.mktemp(f"agents-{request.param}"), request.param)
    yield h
    h.stop()


@asynccontextmanager
async def client(hub: Hub, token: str = OPERATOR, headers: dict[str, str] | None = None, on_message=None):
    h = {"Authorization": f"Bearer {token}", **(headers or {})}
    async with streamable_http_client(hub.srv.mcp_url, http_client=create_mcp_http_client(headers=h)) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=120, message_handler=on_message) as s:
            await s.initialize()
            yield s


def structured(res: types.CallToolResult) -> dict[str, Any]:
    assert res.structured_content is not None, res
    return res.structured_content


async def ok(s: ClientSession, tool: str, **args) -> dict[str, Any]:
    res = await s.call_tool(tool, args)
    assert not res.is_error, f"{tool}({args}) failed: {res.content}"
    return structured(res)


async def err(s: ClientSession, tool: str, **args) -> dict[str, Any]:
    res = await s.call_tool(tool, args)
    assert res.is_error, f"{tool}({args}) should have failed: {res}"
    return structured(res)


def processes_of(agent_id: str) -> list[int]:
    """Processes whose environment names the agent: its runs and everything they started."""
    found = []
    needle = f"CC_AGENT_ID={agent_id}".encode()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes().split(b"\0")
            state = next((line for line in (d / "status").read_text().splitlines() if line.startswith("State:")), "")
        except OSError:
            continue
        if needle in env and "zombie" not in state:
            found.append(int(d.name))
    return found


def wait_for(what, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def runs_of(hub: Hub, name: str, ws: str = ALPHA) -> list[dict]:
    return hub.show(name, ws)["runs"]


# ---------------------------------------------------------------- ask, answer, timeout, capacity


async def test_ask_agent_starts_the_agent_which_answers_as_itself(hub):
    async with client(hub) as s:
        got = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="echo-1", question="what does normalize do?",
                       timeout_seconds=60)  # fmt: skip
        assert got["answered"] is True, got
        assert got["answer"] == "echo: what does normalize do?"
        assert got["from"] == {"kind": "agent", "name": "echo-1", "agent_id": hub.ids["echo-1"]}
        assert got["run"]["agent"] == "echo-1"
        # The answer is in the space, replying to the question, signed by the agent.
        msgs = (await ok(s, "get_messages", workspace_id=ALPHA, space_id=got["space_id"]))["messages"]
        q = next(m for m in msgs if m["id"] == got["question_id"])
        a = next(m for m in msgs if m["id"] == got["answer_id"])
        assert q["sender"]["kind"] == "operator" and a["reply_to"] == q["id"] and a["seq"] > q["seq"]
    # The run ends done: the agent read its brief (stdin == CC_BRIEF), kept its checklist
    # (todo_write / todo_read as its run), heartbeated; its process is gone.
    run = wait_for("the run to end", lambda: next((r for r in runs_of(hub, "echo-1") if r["id"] == got["run"]["run_id"] and r["status"] != "running"), None))  # fmt: skip
    assert run["status"] == "done", run
    assert run["space_id"] == got["space_id"] and run["message_id"] == got["question_id"]
    assert hub.show("echo-1")["heartbeat"]["status"] == "idle"
    assert processes_of(hub.ids["echo-1"]) == []


async def test_a_question_nobody_answers_times_out_and_stays_readable(hub):
    async with client(hub) as s:
        got = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="hanger", question="are you there?",
                       timeout_seconds=2)  # fmt: skip
        assert got["answered"] is False and "answer" not in got
        assert "no answer from hanger within 2 s" in got["summary"]
        # A late answer (the operator may sign as the agent) can still be read.
        late = await ok(s, "send_message", workspace_id=ALPHA, space_id=got["space_id"], text="late, sorry",
                        reply_to=got["question_id"], sender_name="hanger")  # fmt: skip
        page = await ok(s, "get_messages", workspace_id=ALPHA, space_id=got["space_id"], after=got["question_id"])
        assert [m["id"] for m in page["messages"]] == [late["id"]]
        assert page["messages"][0]["sender"] == {"kind": "agent", "name": "hanger", "agent_id": hub.ids["hanger"]}
    # The hanging run hits its profile's limit (6 s): killed, with the grandchild it started.
    run_id = got["run"]["run_id"]
    run = wait_for("the run to time out", lambda: next((r for r in runs_of(hub, "hanger") if r["id"] == run_id and r["status"] not in ("queued", "running")), None), timeout=60)  # fmt: skip
    assert run["status"] == "timed_out", run
    assert "limit of 6 s" in run["error"]
    assert processes_of(hub.ids["hanger"]) == []


async def test_capacity_one_runs_one_and_queues_the_rest_all_answered(hub):
    results: dict[int, dict] = {}
    statuses: list[str] = []

    async def ask(i: int):
        async with client(hub) as s:
            results[i] = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="slow-1",
                                  question=f"question {i}", timeout_seconds=120)  # fmt: skip

    async def watch():
        # While the asks wait: never more than one run of slow-1 running.
        for _ in range(200):
            runs = runs_of(hub, "slow-1")
            running = [r for r in runs if r["status"] == "running"]
            assert len(running) <= 1, running
            statuses.extend(r["status"] for r in runs)
            if len(results) == 3:
                return
            await anyio.sleep(0.1)

    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(ask, i)
        tg.start_soon(watch)
    assert sorted(r["answer"] for r in results.values()) == [f"echo: question {i}" for i in range(3)]
    assert sorted(r["run"]["status"] for r in results.values()) == ["queued", "queued", "running"]
    assert "queued" in statuses
    wait_for("the runs to end", lambda: all(r["status"] == "done" for r in runs_of(hub, "slow-1")))


async def test_a_listening_run_hears_questions_without_a_new_run(hub):
    """An agent already running (--serve: it subscribed to its spaces' messages) answers a
    question itself: ask_agent starts no run for it."""
    async with client(hub) as s:
        first = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="server", question="hello", timeout_seconds=60)
        assert first["answered"] and first["run"]
        # Its run keeps listening: the next questions are answered by the same run.
        for i in range(3):
            got = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="server", question=f"again {i}",
                           timeout_seconds=60)  # fmt: skip
            assert got["answered"] and got["answer"] == f"echo: again {i}", got
            assert "run" not in got, got
        assert [r["status"] for r in runs_of(hub, "server")] == ["running"]


async def test_send_to_agent_delivers_and_wakes_an_agent_that_asks_for_it(hub):
    async with client(hub) as s:
        got = await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_id=hub.ids["rusty"], text="FYI: the cart changed")
        assert got["woke"]["agent"] == "rusty"  # profile echo: --wake-on-message
        msgs = (await ok(s, "get_messages", workspace_id=ALPHA, space_id=got["space_id"]))["messages"]
        assert msgs[-1]["id"] == got["message_id"] or any(m["id"] == got["message_id"] for m in msgs)
        quiet = await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="no need to wake")
        assert "woke" not in quiet
        e = await err(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="Rusty", text="x")
        assert e["pointer"] == "/to_agent_name" and "rusty" in e["data"]["candidates"], e


# ---------------------------------------------------------------- consult, spaces, subscriptions


async def test_consult_agent_picks_by_skills_and_says_why(hub):
    async with client(hub) as s:
        got = await ok(s, "consult_agent", workspace_id=ALPHA, brief="the discounts in the rust cart totals look wrong")
        assert got["chosen"]["name"] == "rusty", got
        # Stemmed terms; function words ("the", "in") match nothing.
        assert got["chosen"]["matched"] == ["discount", "rust", "cart", "total"], got
        assert got["candidates"][0]["score"] > (got["candidates"][1]["score"] if len(got["candidates"]) > 1 else 0)
        assert "rusty scored" in got["why"] or "only agent" in got["why"]
        spaces = (await ok(s, "list_spaces", workspace_id=ALPHA))["spaces"]
        members = next(sp for sp in spaces if sp["id"] == got["space_id"])["members"]
        assert {"rusty", "operator"} <= {m["name"] for m in members}
        # The consulted agent is started with the brief and answers in the space.
        assert got["run"]["agent"] == "rusty"
        with anyio.fail_after(60):
            while True:
                msgs = (await ok(s, "get_messages", workspace_id=ALPHA, space_id=got["space_id"]))["messages"]
                if any(m["sender"]["name"] == "rusty" for m in msgs):
                    break
                await anyio.sleep(0.2)
        answer = next(m for m in msgs if m["sender"]["name"] == "rusty")
        assert answer["text"] == "echo: the discounts in the rust cart totals look wrong"
        none = await ok(s, "consult_agent", workspace_id=ALPHA, brief="kubernetes helm charts")
        assert "chosen" not in none and none["candidates"] == []
        assert "none was consulted" in none["why"]


async def test_a_subscriber_hears_each_new_message(hub):
    heard: list[str] = []

    async def on_message(m):
        if isinstance(m, types.ResourceUpdatedNotification):
            heard.append(str(m.params.uri))

    async with client(hub) as s, client(hub, on_message=on_message) as listener:
        sent = await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="first")
        uri = f"cc://spaces/{sent['space_id']}/messages"
        await listener.subscribe_resource(uri)
        for i in range(3):
            await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text=f"next {i}")
        with anyio.fail_after(10):
            while len(heard) < 3:
                await anyio.sleep(0.05)
        assert heard == [uri] * 3
        # The resource reads the space's latest messages.
        r = await listener.read_resource(uri)
        body = json.loads(r.contents[0].text)
        assert [m["text"] for m in body["messages"]][-3:] == ["next 0", "next 1", "next 2"]
        await listener.unsubscribe_resource(uri)
        await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="after")
        await anyio.sleep(0.5)
        assert len(heard) == 3


async def test_space_notes_reject_a_concurrent_edit(hub):
    async with client(hub) as s:
        sent = await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="notes please")
        sid = sent["space_id"]
        v1 = await ok(s, "update_space_notes", workspace_id=ALPHA, space_id=sid, text="# handoff\n\nstep 1")
        v2 = await ok(s, "update_space_notes", workspace_id=ALPHA, space_id=sid, text="step 2", base_version=v1["version"])
        assert v2["version"] == v1["version"] + 1
        stale = await err(s, "update_space_notes", workspace_id=ALPHA, space_id=sid, text="lost?", base_version=v1["version"])
        assert stale["pointer"] == "/base_version" and stale["data"]["current_version"] == v2["version"], stale
        got = await ok(s, "get_space_notes", workspace_id=ALPHA, space_id=sid)
        assert got["text"] == "step 2" and got["version"] == v2["version"]


async def test_an_answer_through_another_replica_wakes_the_waiter(hub):
    """Two cc-server processes on one PostgreSQL database: the question is asked through
    one, the answer sent through the other, and the waiter wakes on the notification
    (LISTEN/NOTIFY), long before its timeout. (On SQLite the wake-up is in process: one
    server per database file.)"""
    if hub.backend != "postgres":
        pytest.skip("replicas share a PostgreSQL database")
    other = _start_http(hub.cc_bin, hub.data, hub.data.parent / "replica.log", [*hub.store, "--operator-token", OPERATOR])
    try:
        async with client(hub) as s:
            started = time.monotonic()
            result: dict = {}

            async def ask():
                result.update(await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="hanger",
                                       question="through the other replica?", timeout_seconds=120))  # fmt: skip

            async with anyio.create_task_group() as tg:
                tg.start_soon(ask)
                # The question, as seen through the other replica.
                replica = Hub(**{**hub.__dict__, "srv": other})
                async with client(replica) as r:
                    with anyio.fail_after(60):
                        while True:
                            spaces = (await ok(r, "list_spaces", workspace_id=ALPHA))["spaces"]
                            dm = next((sp for sp in spaces if {m["name"] for m in sp["members"]} == {"operator", "hanger"}), None)
                            if dm:
                                msgs = (await ok(r, "get_messages", workspace_id=ALPHA, space_id=dm["id"], limit=200))["messages"]
                                q = next((m for m in msgs if m["text"] == "through the other replica?"), None)
                                if q:
                                    break
                            await anyio.sleep(0.1)
                    await ok(r, "send_message", workspace_id=ALPHA, space_id=dm["id"], reply_to=q["id"],
                             text="yes, from replica B", sender_name="hanger")  # fmt: skip
            waited = time.monotonic() - started
        assert result["answered"] and result["answer"] == "yes, from replica B", result
        assert waited < 60, f"the waiter woke at its deadline ({waited:.0f} s), not on the notification"
    finally:
        _stop(other)


# ---------------------------------------------------------------- todos


async def test_todos_outlive_a_reconnect_and_a_restart(hub):
    conv = {"Cc-Conversation": f"conv-{uuid.uuid4().hex[:8]}"}
    items = [{"content": "index", "status": "completed"}, {"id": "t2", "content": "serve", "status": "in_progress"}]
    async with client(hub, headers=conv) as s:
        w = await ok(s, "todo_write", workspace_id=ALPHA, todos=items)
        assert w["counts"] == {"pending": 0, "in_progress": 1, "completed": 1}
    async with client(hub, headers=conv) as s:
        assert (await ok(s, "todo_read", workspace_id=ALPHA))["todos"] == items
    hub.stop()
    hub.start()
    async with client(hub, headers=conv) as s:
        assert (await ok(s, "todo_read", workspace_id=ALPHA))["todos"] == items
    # Another conversation has its own (empty) list.
    async with client(hub) as s:
        assert (await ok(s, "todo_read", workspace_id=ALPHA))["todos"] == []
        bad = await err(s, "todo_write", workspace_id=ALPHA, todos=[{"content": "x", "status": "done"}])
        assert bad["pointer"] == "/todos/0/status", bad
        bad = await err(s, "todo_write", workspace_id=ALPHA, todos=[{"content": "", "status": "pending"}])
        assert bad["pointer"] == "/todos/0/content", bad
        bad = await err(s, "todo_write", workspace_id=ALPHA, todos=[{"content": "x", "status": "pending"}] * 201)
        assert bad["pointer"] == "/todos", bad
        dup = [{"id": "a", "content": "x", "status": "pending"}, {"id": "a", "content": "y", "status": "pending"}]
        bad = await err(s, "todo_write", workspace_id=ALPHA, todos=dup)
        assert bad["pointer"] == "/todos/1/id", bad


# ---------------------------------------------------------------- presence, health, org chart


async def test_presence_health_and_the_org_chart(hub):
    lead = hub.tokens["lead"]
    async with client(hub, token=lead) as s:
        beat = await ok(s, "agent_heartbeat", status="stuck", note="waiting on review")
        assert beat["health"] == "healthy"
        health = {h["name"]: h for h in (await ok(s, "list_runtime_health"))["agents"]}
        assert health["lead"]["health"] == "healthy" and health["lead"]["last_status"] == "stuck"
        assert health["lead"]["last_note"] == "waiting on review"
        assert "beta-agent" not in health  # another workspace's
        # Silence: newly missing after 3 s, offline after 8 s (this hub's configuration).
        await anyio.sleep(3.5)
        health = {h["name"]: h for h in (await ok(s, "list_runtime_health"))["agents"]}
        assert health["lead"]["health"] == "newly_missing", health["lead"]
        presence = {p["name"]: p for p in (await ok(s, "list_agent_presence"))["agents"]}
        assert presence["slow-1"]["capacity"] == 1 and presence["stuck"]["capacity"] == 8
        assert {p["lifecycle"] for p in presence.values()} <= {"working", "queued", "idle"}
        assert presence["lead"]["health"] == "newly_missing" and presence["hanger"]["running"] == 0
        chart = await ok(s, "get_org_chart")
        root = next(n for n in chart["roots"] if n["name"] == "lead")
        kids = {c["name"]: c for c in root["reports"]}
        assert set(kids) == {"echo-1", "rusty"}
        assert [c["name"] for c in kids["echo-1"]["reports"]] == ["slow-1"]
    # A cycle is refused by the operator's CLI.
    r = hub.cli("agents", "update", "lead", "--workspace", ALPHA, "--reports-to", "slow-1", check=False)
    assert r.returncode != 0 and "cycle" in r.stderr, r.stderr


# ---------------------------------------------------------------- worktrees


async def test_concurrent_runs_work_in_worktrees_of_their_own(hub):
    hub.reports.unlink(missing_ok=True)
    async with client(hub) as s:
        async with anyio.create_task_group() as tg:
            for i in range(2):
                tg.start_soon(lambda i=i: ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="worker", question=f"edit {i}", timeout_seconds=60))  # fmt: skip
    reports = [json.loads(line) for line in hub.reports.read_text().splitlines()]
    assert len(reports) == 2
    paths = set()
    for rep in reports:
        (repo,) = [r for r in rep["repos"] if r["name"] == "app"]
        assert "root" not in repo  # never the main checkout
        wt = repo["worktree"]
        assert wt["kind"] == "git" and wt["branch"] == f"cc-run/{rep['env']['CC_RUN_ID']}"
        assert Path(wt["path"]).resolve() != hub.repo.resolve()
        paths.add(wt["path"])
        # The run's own edit shows in the code tools' answers; the other run's never does.
        (changes,) = rep["search"]["worktree_changes"]
        assert changes["files"] == [f"edit-{rep['env']['CC_RUN_ID']}.txt"], changes
        assert rep["todo_conversation"] == f"run:{rep['env']['CC_RUN_ID']}"
    assert len(paths) == 2
    # The main checkout saw nothing; the worktrees held uncommitted work, so they are kept
    # and reported by their runs.
    assert git(hub.repo, "status", "--porcelain") == ""
    for rep in reports:
        run_id = rep["env"]["CC_RUN_ID"]
        run = wait_for("the run to end", lambda: next((r for r in runs_of(hub, "worker") if r["id"] == run_id and r["status"] == "done"), None))  # fmt: skip
        assert len(run["kept"]) == 1 and "uncommitted or unpushed" in run["kept"][0], run


# ---------------------------------------------------------------- workspaces


async def test_an_agent_of_one_workspace_reaches_nothing_of_another(hub):
    beta = hub.tokens["beta-agent"]
    async with client(hub) as s:
        sent = await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="alpha secret")
        alpha_space = sent["space_id"]
    async with client(hub, token=beta) as s:
        # Its own workspace is implied; another's is refused.
        assert {a["name"] for a in (await ok(s, "list_agents"))["agents"]} == {"beta-agent"}
        e = await err(s, "list_agents", workspace_id=ALPHA)
        assert e["pointer"] == "/workspace_id", e
        e = await err(s, "get_messages", space_id=alpha_space)
        assert e["pointer"] == "/space_id", e
        e = await err(s, "send_message", space_id=alpha_space, text="hi")
        assert e["pointer"] == "/space_id", e
        e = await err(s, "get_space_notes", space_id=alpha_space)
        assert e["pointer"] == "/space_id", e
        e = await err(s, "send_to_agent", to_agent_id=hub.ids["echo-1"], text="hi")
        assert e["pointer"] == "/to_agent_id", e
        e = await err(s, "ask_agent", to_agent_name="echo-1", question="hi", timeout_seconds=1)
        assert e["pointer"] == "/to_agent_name" and e["data"]["candidates"] == ["beta-agent"], e
        e = await err(s, "search_code", query="normalize", workspace_id=ALPHA)
        assert e["pointer"] == "/workspace_id", e
        assert "alpha secret" not in json.dumps(await ok(s, "list_spaces"))
        with pytest.raises(Exception):
            await s.read_resource(f"cc://spaces/{alpha_space}/messages")
        # An agent signs as itself only.
        own = await ok(s, "list_spaces")
        e = await err(s, "send_message", space_id=alpha_space, text="x", sender_name="echo-1")
        assert e["pointer"] in ("/space_id", "/sender_name"), e
        assert all(sp["workspace_id"] == BETA for sp in own["spaces"])
    async with client(hub, token=hub.tokens["lead"]) as s:
        sent = await ok(s, "send_to_agent", to_agent_name="slow-1", text="from lead")
        e = await err(s, "send_message", space_id=sent["space_id"], text="x", sender_name="slow-1")
        assert e["pointer"] == "/sender_name", e


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "tool,args,pointer",
    [
        ("ask_agent", {"to_agent_name": "echo-1", "question": "q"}, "/timeout_seconds"),
        ("ask_agent", {"to_agent_name": "echo-1", "question": "q", "timeout_seconds": 0}, "/timeout_seconds"),
        ("ask_agent", {"to_agent_name": "echo-1", "question": "q", "timeout_seconds": 601}, "/timeout_seconds"),
        ("ask_agent", {"question": "q", "timeout_seconds": 5}, "/to_agent_id"),
        ("ask_agent", {"to_agent_id": "ag-nope", "question": "q", "timeout_seconds": 5}, "/to_agent_id"),
        ("send_to_agent", {"to_agent_name": "nobody", "text": "x"}, "/to_agent_name"),
        ("send_to_agent", {"to_agent_name": "echo-1", "text": ""}, "/text"),
        ("consult_agent", {"brief": ""}, "/brief"),
        ("consult_agent", {"brief": "rust", "space_id": "sp-nope"}, "/space_id"),
        ("get_messages", {"space_id": "sp-nope"}, "/space_id"),
        ("get_messages", {"space_id": "{space}", "limit": 201}, "/limit"),
        ("get_messages", {"space_id": "{space}", "after": "msg-nope"}, "/after"),
        ("send_message", {"space_id": "{space}", "text": "x", "reply_to": "msg-nope"}, "/reply_to"),
        ("update_space_notes", {"space_id": "{space}", "text": "x", "base_version": -1}, "/base_version"),
        ("agent_heartbeat", {"status": "sleeping"}, "/status"),
        ("create_runtime_profile", {"name": "bad name", "family": "mcp-cli", "command": PYTHON}, "/name"),
        ("create_runtime_profile", {"name": "x", "family": "bash", "command": PYTHON}, "/family"),
        ("hire_agent", {}, None),
        ("fire_agent", {}, None),
        ("update_agent", {}, None),
    ],
)
async def test_bad_input_names_its_pointer(hub, tool, args, pointer):
    async with client(hub) as s:
        space = (await ok(s, "send_to_agent", workspace_id=ALPHA, to_agent_name="slow-1", text="for bad input"))["space_id"]
        args = {k: (v.replace("{space}", space) if isinstance(v, str) else v) for k, v in args.items()}
        if tool != "agent_heartbeat":
            args["workspace_id"] = ALPHA
        if pointer is None:
            # The spec has no hire/fire/update tool: agents are the operator's (the CLI).
            with pytest.raises(Exception, match="unknown tool"):
                await s.call_tool(tool, args)
            return
        if tool == "agent_heartbeat":
            async with client(hub, token=hub.tokens["lead"]) as a:
                e = await err(a, tool, **args)
        else:
            e = await err(s, tool, **args)
        assert e.get("pointer") == pointer, e


async def test_heartbeats_are_an_agents_own(hub):
    async with client(hub) as s:
        e = await err(s, "agent_heartbeat", workspace_id=ALPHA, status="active")
        assert "agent" in e["message"], e


async def test_runtime_profiles_are_listed_and_created_within_the_allow_list(hub):
    import httpx2 as httpx

    async with client(hub, token=hub.tokens["lead"]) as s:
        names = {p["name"] for p in (await ok(s, "list_runtime_profiles"))["profiles"]}
        assert {"echo", "slow", "hang"} <= names and "beta" not in names
        # It requires approval: the call waits in the operator's queue.
        name = f"p-{uuid.uuid4().hex[:6]}"
        for command, approved in [("/bin/sh", False), (PYTHON, True)]:
            args = dict(name=name, family="mcp-cli", command=command, args=["-u", AGENT_PY])
            e = await err(s, "create_runtime_profile", **args)
            assert e["error"] == "approval_pending", e
            with httpx.Client(base_url=hub.srv.base, timeout=30, headers={"Authorization": f"Bearer {OPERATOR}"}) as op:
                assert op.post(f"/approvals/{e['data']['approval_id']}/approve").status_code == 200
            if not approved:
                # Approved or not, a program off the operator's allow-list is refused.
                e = await err(s, "create_runtime_profile", **args)
                assert e["pointer"] == "/command" and "allow-list" in e["message"], e
                continue
            p = await ok(s, "create_runtime_profile", **args)
            assert (p["name"], p["command"], p["args"], p["created_by"]) == (name, PYTHON, ["-u", AGENT_PY], "lead@alpha")
        assert name in {p["name"] for p in (await ok(s, "list_runtime_profiles"))["profiles"]}
    # The operator's CLI is held to the allow-list too.
    r = hub.cli("profiles", "add", "sh", "--workspace", ALPHA, "--family", "mcp-cli", "--", "/bin/sh", "-c", "id", check=False)
    assert r.returncode != 0 and "allow" in r.stderr, r.stderr


# ---------------------------------------------------------------- kill -9


def test_kill_9_mid_run_leaves_no_process_and_the_runs_abandoned(cc_bin, tmp_path):
    """50 dispatches to an agent whose runs hang (8 at once, the rest queued); the server is
    killed with SIGKILL halfway; once it has restarted, no process of those runs is left and
    every one of them is marked abandoned. Both backends."""
    for backend in ("sqlite", "postgres"):
        base = tmp_path / backend
        base.mkdir()
        hub = make_hub(cc_bin, base, backend)
        try:
            anyio.run(fifty_asks, hub)
            stuck = hub.ids["stuck"]
            wait_for("8 runs to be running", lambda: len(processes_of(stuck)) >= 16, timeout=90)  # run + its sleep
            runs = hub.show("stuck", runs="100")["runs"]
            assert len(runs) == 50 and {r["status"] for r in runs} == {"running", "queued"}, runs
            hub.srv.proc.send_signal(signal.SIGKILL)
            hub.srv.proc.wait()
            assert processes_of(stuck), "the runs outlive a killed server (their own process groups)"
            hub.start()
            wait_for("no process of the runs", lambda: processes_of(stuck) == [], timeout=30)
            runs = hub.show("stuck", runs="100")["runs"]
            assert len(runs) == 50 and {r["status"] for r in runs} == {"abandoned"}, {r["status"] for r in runs}
            assert all("stopped without ending it" in r["error"] for r in runs)
        finally:
            hub.stop()
            for pid in processes_of(hub.ids.get("stuck", "?")):  # never leave a failed run's processes
                os.kill(pid, signal.SIGKILL)


async def fifty_asks(hub: Hub) -> None:
    async def ask(s, i):
        r = await ok(s, "ask_agent", workspace_id=ALPHA, to_agent_name="stuck", question=f"hang {i}", timeout_seconds=1)
        assert r["answered"] is False and r["run"]["status"] in ("running", "queued"), r

    async with client(hub) as s:
        for batch in range(5):
            async with anyio.create_task_group() as tg:
                for i in range(10):
                    tg.start_soon(ask, s, batch * 10 + i)
