"""A conversation's persistent goal with real clients (the official Python SDK): the
prompts `goal` and `loop` are listed beside an extension's, prompts/get starts the
conversation's goal (one at a time; bad arguments are -32602 naming the argument),
complete_goal marks it met with the caller's evidence, and a conversation without an active
goal gets a clear error — on every transport, each session its own conversation."""

from __future__ import annotations

import uuid

import pytest
from mcp.shared.exceptions import MCPError

from conftest import WORKSPACE
from test_policy import (  # noqa: F401 (fixtures)
    ALICE_TOKEN,
    anyio_backend,
    call_err,
    call_ok,
    cc_bin,
    policy_data,
    policy_server,
    session,
    transports,
)

pytestmark = pytest.mark.anyio


def text_of(result) -> str:
    [m] = result.messages
    assert m.role == "user"
    return m.content.text


@pytest.mark.parametrize("transport", transports())
async def test_the_goal_and_loop_prompts_start_a_goal_complete_goal_meets(transport, policy_server, policy_data, cc_bin):
    kw = dict(srv=policy_server, token=ALICE_TOKEN, cc_bin=cc_bin, data=policy_data)
    async with session(transport, **kw) as s:
        assert s.initialize_result is None or s.initialize_result.capabilities.prompts is not None
        listed = {p.name: p for p in (await s.list_prompts()).prompts}
        # The product's two, beside the conformance extension's.
        assert {"goal", "loop", "test_simple_prompt"} <= set(listed), listed
        assert [(a.name, a.required) for a in listed["goal"].arguments] == [
            ("objective", True), ("target", False), ("workspace_id", False)
        ]
        # No active goal yet: a clear error.
        e = await call_err(s, "complete_goal", workspace_id=WORKSPACE, evidence="done")
        assert e["error"] == "not_found" and "no active goal" in e["message"] and "/goal" in e["message"], e
        # A bad argument is -32602 naming it.
        with pytest.raises(MCPError) as bad:
            await s.get_prompt("goal", {"target": "x"})
        assert bad.value.code == -32602 and bad.value.message.startswith("/objective"), bad.value.message
        objective = f"ship {uuid.uuid4().hex[:8]}"
        got = await s.get_prompt("goal", {"objective": objective, "target": "the release is tagged", "workspace_id": WORKSPACE})
        text = text_of(got)
        assert f"This conversation's goal: {objective}" in text and "complete_goal" in text, text
        goals = (await call_ok(s, "list_goals", workspace_id=WORKSPACE))["goals"]
        [g] = [g for g in goals if g["title"] == objective]
        assert (g["status"], g["prompt"], g["target"]) == ("active", "goal", "the release is tagged"), g
        assert g["id"] in text
        # One active goal per conversation.
        with pytest.raises(MCPError) as again:
            await s.get_prompt("loop", {"objective": "something else"})
        assert "active already" in again.value.message, again.value.message
        met = await call_ok(s, "complete_goal", workspace_id=WORKSPACE, evidence="tag v2.0.0 pushed")
        assert (met["id"], met["status"], met["progress"], met["evidence"]) == (g["id"], "met", 100, "tag v2.0.0 pushed")
        e = await call_err(s, "complete_goal", workspace_id=WORKSPACE, evidence="again")
        assert e["error"] == "not_found", e
        # Met, the conversation may loop on the next one.
        looped = text_of(await s.get_prompt("loop", {"objective": "make CI green", "workspace_id": WORKSPACE}))
        assert "Work in a loop toward this goal: make CI green" in looped, looped
    # Another session is another conversation: it has no active goal.
    async with session(transport, **kw) as s2:
        e = await call_err(s2, "complete_goal", workspace_id=WORKSPACE, evidence="not mine")
        assert e["error"] == "not_found", e
