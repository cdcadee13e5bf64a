"""Tickets and the board with real clients (the official Python SDK): create_ticket's
approval answered by the client's elicitation on every transport (accepted: it runs once;
declined: no ticket), and by the operator's queue over HTTP; the board's requester kept out
of its own decision across two principals."""

from __future__ import annotations

import uuid

import httpx2 as httpx
import pytest

from conftest import WORKSPACE
from test_policy import (  # noqa: F401 (fixtures)
    ALICE_TOKEN,
    OPERATOR_TOKEN,
    Recorder,
    call_err,
    anyio_backend,
    call_ok,
    cc_bin,
    operator,
    policy_data,
    policy_server,
    session,
    transports,
)

pytestmark = pytest.mark.anyio


def title() -> str:
    return f"ticket {uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("transport", transports())
async def test_create_ticket_is_approved_by_the_clients_elicitation(transport, policy_server, policy_data, cc_bin):
    rec = Recorder("accept", approve=True)
    async with session(
        transport, srv=policy_server, token=ALICE_TOKEN, recorder=rec, cc_bin=cc_bin, data=policy_data
    ) as s:
        name = title()
        t = await call_ok(s, "create_ticket", workspace_id=WORKSPACE, title=name, status="todo", labels=["bug"])
        assert t["status"] == "open" and t["key"].startswith("T-") and t["labels"] == ["bug"], t
        [asked] = rec.asked
        assert "create_ticket" in asked.message and name in asked.message, asked.message
        got = await call_ok(s, "get_ticket", workspace_id=WORKSPACE, ticket_id=t["key"])
        assert got["ticket"]["id"] == t["id"]
        # Reads and comments ask nothing.
        await call_ok(s, "comment_on_ticket", workspace_id=WORKSPACE, ticket_id=t["key"], text="looking")
        assert len(rec.asked) == 1
        # Declined: nothing is created.
        rec.answer = "decline"
        declined = title()
        e = await call_err(s, "create_ticket", workspace_id=WORKSPACE, title=declined)
        assert e["error"] == "approval_denied", e
        listed = await call_ok(s, "list_tickets", workspace_id=WORKSPACE, limit=200)
        assert declined not in {x["title"] for x in listed["tickets"]}
        # An unknown ticket is an error naming the pointer.
        rec.answer = "accept"
        e = await call_err(s, "update_ticket", workspace_id=WORKSPACE, ticket_id="T-999999", status="done")
        assert e["error"] == "not_found" and e["pointer"] == "/ticket_id", e


async def test_create_ticket_through_the_operators_queue(policy_server):
    async with session("http", srv=policy_server, token=ALICE_TOKEN, elicit=False) as s:
        name = title()
        e = await call_err(s, "create_ticket", workspace_id=WORKSPACE, title=name)
        assert e["error"] == "approval_pending", e
        aid = e["data"]["approval_id"]
        with operator(policy_server) as op:
            assert op.post(f"/approvals/{aid}/approve", json={"reason": "fine"}).status_code == 200
        t = await call_ok(s, "create_ticket", workspace_id=WORKSPACE, title=name)
        assert t["title"] == name
        # Used once: the same call again is a new approval.
        assert (await call_err(s, "create_ticket", workspace_id=WORKSPACE, title=name))["error"] == "approval_pending"


async def test_the_board_keeps_the_requester_out_of_its_own_decision(policy_server):
    async with session("http", srv=policy_server, token=ALICE_TOKEN) as a, session(
        "http", srv=policy_server, token=ALICE_TOKEN
    ) as again, session("http", srv=policy_server, token=OPERATOR_TOKEN) as op:
        ap = await call_ok(a, "create_approval", workspace_id=WORKSPACE, kind="merge", title="merge #7", payload={"pr": 7})
        assert ap["status"] == "pending" and ap["requester"] == "alice", ap
        # The same principal on another connection is still the requester.
        e = await call_err(again, "decide_approval", workspace_id=WORKSPACE, approval_id=ap["id"], decision="approve")
        assert e["error"] == "conflict" and "its own request" in e["message"], e
        got = await call_ok(op, "decide_approval", workspace_id=WORKSPACE, approval_id=ap["id"], decision="approve")
        assert got["approval"]["status"] == "approved", got
        assert [x["action"] for x in got["events"]] == ["create", "approve"], got
        e = await call_err(op, "decide_approval", workspace_id=WORKSPACE, approval_id=ap["id"], decision="reject")
        assert e["error"] == "conflict" and "is approved" in e["message"], e


@pytest.mark.parametrize("transport", transports())
async def test_exit_plan_mode_is_decided_on_the_board(transport, policy_server, policy_data, cc_bin):
    """exit_plan_mode opens a plan_exit on the approvals board; the client's answer through
    elicitation is recorded there as the decision (declined: rejected, the conversation stays
    in plan; accepted: approved, consumed, the conversation is in chat)."""
    rec = Recorder("decline")
    kw = dict(srv=policy_server, token=ALICE_TOKEN, recorder=rec, cc_bin=cc_bin, data=policy_data)
    if transport == "stdio":
        kw["stdio_args"] = ["--mode", "plan"]
    else:
        kw["mode"] = "plan"
    async with session(transport, **kw) as s, session("http", srv=policy_server, token=OPERATOR_TOKEN) as op:

        async def on_board(approval_id):
            listed = await call_ok(op, "list_approvals", workspace_id=WORKSPACE, limit=200)
            [a] = [a for a in listed["approvals"] if a["id"] == approval_id]
            return a

        e = await call_err(s, "exit_plan_mode")
        assert e["error"] == "approval_denied" and "declined" in e["message"], e
        first = e["data"]["board_approval_id"]
        a = await on_board(first)
        assert (a["kind"], a["status"]) == ("plan_exit", "rejected"), a
        assert "confirmation port" in a["decided_by"], a
        assert (await call_ok(s, "list_my_tools"))["mode"] == "plan"
        rec.answer, rec.approve = "accept", True
        got = await call_ok(s, "exit_plan_mode")
        assert (got["mode"], got["previous"]) == ("chat", "plan"), got
        asked = rec.asked[-1].message
        assert "plan_exit" in asked and "board approval" in asked, asked
        listed = (await call_ok(op, "list_approvals", workspace_id=WORKSPACE, limit=200))["approvals"]
        mine = [x for x in listed if x["kind"] == "plan_exit" and x.get("conversation") == a["conversation"]]
        [second] = [x for x in mine if x["id"] != first]
        assert second["status"] == "approved" and "consumed_at" in second, second
