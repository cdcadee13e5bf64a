"""A pipeline end to end with real clients, on both store backends: the operator's
config.toml declares a pipeline (ticket.created with priority urgent -> the agent
`submitter`, whose output schema needs a severity and a summary); creating such a ticket
(approved through the operator's queue) starts the agent's run — tests/mcp/agent.py, a real
MCP client calling back with its per-run token — which calls submit_output three times: an
invalid payload (refused, every error by JSON pointer), a valid one (stored), and another
(a conflict: it is submitted once). A ticket that does not match starts nothing, and
preview_trigger says why, recording nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_agents import AGENT_PY, OPERATOR, PYTHON, Hub, client, err, git, ok, postgres_database, wait_for

pytestmark = pytest.mark.anyio

WS = "alpha"

PAYLOADS = [
    {"severity": "p9", "extra": 1},
    {"severity": "p1", "summary": "null deref at start"},
    {"severity": "p0", "summary": "again"},
]

PIPELINES = """
[[pipelines]]
name = "triage"
[[pipelines.triggers]]
type = "ticket.created"
filters = { priority = "urgent", title = { glob = "*crash*" } }
[[pipelines.runs]]
agent = "submitter"
brief = "Triage {{event.key}}: {{event.title}}"
output_schema = { type = "object", required = ["severity", "summary"], additionalProperties = false, properties = { severity = { enum = ["p0", "p1", "p2", "p3"] }, summary = { type = "string" } } }
"""


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def hub(request, cc_bin, tmp_path_factory):
    base: Path = tmp_path_factory.mktemp(f"pipelines-{request.param}")
    repo = base / "app"
    repo.mkdir()
    (repo / "a.py").write_text("def a():\n    return 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "fixture")
    data = base / "data"
    data.mkdir()
    (data / "config.toml").write_text(f'[runtimes]\nallow = ["{PYTHON}"]\nrun_timeout_secs = 120\n{PIPELINES}')
    (base / "payloads.json").write_text(json.dumps(PAYLOADS))
    store = ["--store", postgres_database()] if request.param == "postgres" else []
    h = Hub(cc_bin=cc_bin, data=data, repo=repo, store=store, backend=request.param, reports=base / "reports.jsonl")
    h.cli("index", str(repo), "--workspace", WS)
    fixed = ["--submit-output", str(base / "payloads.json"), "--report", str(h.reports)]
    h.cli("profiles", "add", "submit", "--workspace", WS, "--family", "mcp-cli", "--", PYTHON, AGENT_PY, *fixed)
    h.add_agent("submitter", ws=WS, runtime="submit")
    h.start()
    yield h
    h.stop()


async def create_ticket(hub: Hub, s, **args) -> dict:
    """create_ticket, approved by the operator through the queue (the command line)."""
    e = await err(s, "create_ticket", workspace_id=WS, **args)
    assert e["error"] == "approval_pending", e
    hub.cli("approvals", "approve", e["data"]["approval_id"])
    return await ok(s, "create_ticket", workspace_id=WS, **args)


def reports(hub: Hub) -> list[dict]:
    if not hub.reports.exists():
        return []
    return [json.loads(line) for line in hub.reports.read_text().splitlines() if line.strip()]


async def test_a_matching_ticket_starts_the_run_which_submits_its_output_once(hub):
    async with client(hub, OPERATOR) as s:
        # preview first: what would start, and it records nothing.
        p = await ok(s, "preview_trigger", workspace_id=WS,
                     event={"type": "ticket.created", "priority": "low", "title": "app crash"})  # fmt: skip
        t = p["triggers"][0]
        assert (t["matched"], t["failed_filter"]["field"], p["would_start"]) == (False, "priority", 0), p
        p = await ok(s, "preview_trigger", workspace_id=WS,
                     event={"type": "ticket.created", "priority": "urgent", "title": "app crash"})  # fmt: skip
        assert p["would_start"] == 1 and p["triggers"][0]["runs"][0]["agent"] == "submitter", p
        assert hub.show("submitter", WS)["runs"] == []
        # A ticket that does not match: no run.
        await create_ticket(hub, s, title="slow page", priority="urgent")
        t = await create_ticket(hub, s, title="app crash on start", priority="urgent")
        got = wait_for("the pipeline run's report", lambda: reports(hub), timeout=90)
        assert len(got) == 1, got
        r = got[0]
        assert r["env"]["CC_TICKET_ID"] == t["id"], r["env"]
        assert r["brief"].startswith(f"Triage {t['key']}: app crash on start"), r["brief"]
        invalid, valid, again = r["submitted"]
        assert invalid["is_error"], invalid
        e = invalid["content"]
        assert (e["error"], e["pointer"]) == ("invalid_input", "/output"), e
        errors = sorted((x["pointer"], x["keyword"]) for x in e["data"]["errors"])
        assert errors == [("/output", "additionalProperties"), ("/output", "required"), ("/output/severity", "enum")], e
        assert not valid["is_error"], valid
        assert valid["content"]["pipeline"] == "triage" and valid["content"]["run_id"] == r["env"]["CC_RUN_ID"]
        assert again["is_error"] and again["content"]["error"] == "conflict", again
        runs = wait_for("the run's end", lambda: [x for x in hub.show("submitter", WS)["runs"] if x["status"] == "done"])
        assert len(hub.show("submitter", WS)["runs"]) == 1, "the non-matching ticket started nothing"
        assert runs[0]["reason"] == "pipeline"
        # The operator is no pipeline run.
        e = await err(s, "submit_output", workspace_id=WS, output={})
        assert e["error"] == "not_found" and "no current pipeline run" in e["message"], e
