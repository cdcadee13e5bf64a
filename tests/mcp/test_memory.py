"""Memory with real clients (the official Python SDK): a fact proposed into a new domain is
found by search_memory, a fact that supersedes it takes its place in search, and the
domain is listed with its counts — on every transport."""

from __future__ import annotations

import uuid

import pytest

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


@pytest.mark.parametrize("transport", transports())
async def test_propose_fact_then_search_memory_finds_it_and_supersession_replaces_it(
    transport, policy_server, policy_data, cc_bin
):
    kw = dict(srv=policy_server, token=ALICE_TOKEN, cc_bin=cc_bin, data=policy_data)
    domain = f"release-{uuid.uuid4().hex[:8]}"
    # One word the code tokenizer keeps whole (letters only): no other test's fact has it.
    word = "zeta" + "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:8])
    async with session(transport, **kw) as s:
        old = await call_ok(s, "propose_fact", workspace_id=WORKSPACE, domain=domain,
                            text=f"The {word} service deploys with the old pipeline.", source="a test")  # fmt: skip
        assert old["domain_created"] is True and old["fact"]["status"] == "active", old
        found = await call_ok(s, "search_memory", workspace_id=WORKSPACE, query=word, mode="keyword")
        assert [h["entry"]["id"] for h in found["results"]] == [old["fact"]["id"]], found
        assert found["results"][0]["bm25_rank"] == 1 and found["semantic"] == "not used (mode keyword)", found
        new = await call_ok(s, "propose_fact", workspace_id=WORKSPACE, domain=domain,
                            text=f"The {word} service deploys with the new pipeline.")  # fmt: skip
        sup = await call_ok(s, "supersede_fact", workspace_id=WORKSPACE, old_id=old["fact"]["id"], new_id=new["fact"]["id"])
        assert [e["id"] for e in sup["chain"]] == [old["fact"]["id"], new["fact"]["id"]], sup
        # Hybrid by default; without a model the server says why and answers from keyword.
        found = await call_ok(s, "search_memory", workspace_id=WORKSPACE, query=f"{word} deploys", domain=domain)
        assert [h["entry"]["id"] for h in found["results"]] == [new["fact"]["id"]], found
        assert found["mode"] == "hybrid" or found["semantic"].startswith("unavailable: "), found
        domains = {d["name"]: d for d in (await call_ok(s, "list_memory_domains", workspace_id=WORKSPACE))["domains"]}
        assert (domains[domain]["facts"], domains[domain]["policies"]) == (1, 0), domains[domain]
        # Bad input names its pointer.
        e = await call_err(s, "search_memory", workspace_id=WORKSPACE, query="x", mode="dense")
        assert e["error"] == "invalid_input" and e["pointer"] == "/mode", e
