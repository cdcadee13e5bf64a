"""Reviews end to end, with reviewer agents that are real processes, on both store backends.

A repository the test makes with two commits (packages shop and billing: a changed function
with callers, a removed one, an added one) is registered in a workspace with two reviewer
agents (tests/mcp/agent.py --review: a real MCP client on the official Python SDK that
cc-server starts as each run) whose skills name the packages, and one agent that is no
reviewer, and a reviewer no area matches. start_ai_review dispatches each area's reviewer; each
raises a finding in its area, confirms the other's as it is posted into the review space, and
gives its verdict; request_peer_review starts the third reviewer on a finding (never its author
or confirmer); then
finalize_review applies its rule (both findings are confirmed P1s: hold) and closes the review.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from test_agents import AGENT_PY, ALPHA, PYTHON, Hub, client, err, git, ok, postgres_database, runs_of, wait_for

pytestmark = pytest.mark.anyio

BASE = {
    "shop/__init__.py": "",
    "shop/pricing.py": "def price(item):\n    return item.cost * 2\n\n\ndef old_discount(item):\n    return 0\n",
    "shop/cart.py": "from shop.pricing import price, old_discount\n\n\ndef total(items):\n    return sum(price(i) - old_discount(i) for i in items)\n",
    "billing/__init__.py": "",
    "billing/invoice.py": "from shop.cart import total\n\n\ndef bill(items):\n    return total(items)\n\n\ndef render(x):\n    return str(x)\n\n\ndef report(x):\n    return render(x)\n",
}
HEAD = {
    "shop/pricing.py": "def price(item):\n    return item.cost * 3\n\n\ndef rebate(item):\n    return item.cost // 10\n",
    "shop/cart.py": "from shop.pricing import price, rebate\n\n\ndef total(items):\n    return sum(price(i) - rebate(i) for i in items)\n",
    "billing/invoice.py": "from shop.cart import total\n\n\ndef bill(items):\n    return total(items)\n\n\ndef render(x):\n    return f'{x:.2f}'\n\n\ndef report(x):\n    return render(x)\n",
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def hub(request, cc_bin, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"reviews-{request.param}")
    repo = base / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, BASE)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    write(repo, HEAD)
    git(repo, "commit", "-qam", "head")
    data = base / "data"
    data.mkdir()
    (data / "config.toml").write_text(f'[runtimes]\nallow = ["{PYTHON}"]\nrun_timeout_secs = 120\n')
    store = ["--store", postgres_database()] if request.param == "postgres" else []
    h = Hub(cc_bin=cc_bin, data=data, repo=repo, store=store, backend=request.param)
    h.cli("index", str(repo), "--workspace", ALPHA)
    h.cli("profiles", "add", "reviewer", "--workspace", ALPHA, "--family", "mcp-cli", "--", PYTHON, AGENT_PY, "--review")
    h.cli("profiles", "add", "echo", "--workspace", ALPHA, "--family", "mcp-cli", "--", PYTHON, AGENT_PY)
    h.add_agent("rev-shop", runtime="reviewer", skills="review,shop,pricing", description="reviews the shop's pricing code")
    h.add_agent("rev-billing", runtime="reviewer", skills="review,billing,invoices", description="reviews billing")
    h.add_agent("planner", runtime="echo", skills="planning,shop", description="plans the shop's work")
    # A reviewer no area matches: the one left for a second look.
    h.add_agent("rev-docs", runtime="echo", skills="review,docs", description="reviews the documentation")
    h.start()
    yield h
    h.stop()


async def test_reviewer_agents_dispatched_per_area_find_confirm_and_judge_then_finalize(hub):
    base = git(hub.repo, "rev-parse", "HEAD~1").strip()
    async with client(hub) as s:
        r = await ok(s, "start_ai_review", workspace_id=ALPHA, repo="shop", base=base, head="main")
        assert [a["area"] for a in r["areas"]] == ["billing", "shop"], r["areas"]
        shop = r["areas"][1]
        assert sorted((x["qualified_name"], x["change"]) for x in shop["symbols"]) == [
            ("shop.cart.total", "modified"),
            ("shop.pricing.old_discount", "removed"),
            ("shop.pricing.price", "modified"),
            ("shop.pricing.rebate", "added"),
        ]
        assert shop["blast_radius"] == {"callers": 1, "files": 1}
        # Each area's reviewer is the one whose skills name it; the planner is no reviewer.
        assert {x["area"]: x["agent"] for x in r["reviewers"]} == {"billing": "rev-billing", "shop": "rev-shop"}, r
        assert r["unassigned_areas"] == []
        for name in ("rev-shop", "rev-billing"):
            wait_for(f"{name}'s run to end", lambda: [x for x in runs_of(hub, name) if x["status"] not in ("queued", "running")], timeout=120)
            assert [x["status"] for x in runs_of(hub, name)] == ["done"], runs_of(hub, name)
        assert runs_of(hub, "planner") == [] and runs_of(hub, "rev-docs") == []
        # A second look at rev-shop's finding: neither its author nor its confirmer is asked.
        texts = [m["text"] for m in (await ok(s, "get_messages", workspace_id=ALPHA, space_id=r["space_id"], limit=200))["messages"]]
        node_id = next(t.split()[1] for t in texts if t.startswith("finding ") and "(by rev-shop)" in t)
        peer = await ok(s, "request_peer_review", workspace_id=ALPHA, node_id=node_id)
        assert (peer["node_id"], peer["agent"]) == (node_id, "rev-docs"), peer
        wait_for("the peer's run to end", lambda: [x for x in runs_of(hub, "rev-docs") if x["status"] not in ("queued", "running")], timeout=120)
        assert len(runs_of(hub, "rev-docs")) == 1, runs_of(hub, "rev-docs")
        e = await err(s, "request_peer_review", workspace_id=ALPHA, node_id=node_id, agent="rev-shop")
        assert (e["error"], e["pointer"]) == ("conflict", "/agent"), e
        out = await ok(s, "finalize_review", workspace_id=ALPHA, review_id=r["review_id"])
        nodes = {n["author"]: n for n in out["nodes"]}
        assert set(nodes) == {"rev-shop", "rev-billing"}, out["nodes"]
        # Each confirmed the other's finding, none its own.
        assert nodes["rev-shop"]["confirmed_by"] == ["rev-billing"] and nodes["rev-billing"]["confirmed_by"] == ["rev-shop"]
        assert (nodes["rev-shop"]["area"], nodes["rev-billing"]["area"]) == ("shop", "billing")
        assert all(n["consensus"] == "confirmed" for n in out["nodes"])
        assert sorted(v["reviewer"] for v in out["verdicts"]) == ["rev-billing", "rev-shop"]
        assert (out["decision"]["verdict"], out["decision"]["rule"]) == ("hold", 2), out["decision"]
        assert out["review"]["status"] == "finalized"
        # The space holds the walkthrough, the findings, confirmations, verdicts and the summary.
        texts = [m["text"] for m in (await ok(s, "get_messages", workspace_id=ALPHA, space_id=r["space_id"], limit=200))["messages"]]
        assert texts[1].startswith("Walkthrough") and texts[-1].startswith("## Review of shop")
        assert sum(t.startswith("finding ") for t in texts) == 2 and sum(t.startswith("confirmed ") for t in texts) == 2
        # Closed: a late finding is a conflict naming the review.
        e = await err(s, "add_review_node", workspace_id=ALPHA, review_id=r["review_id"], area="shop", file="shop/cart.py",
                      line=1, priority="P3", title="late", body="")  # fmt: skip
        assert e["error"] == "conflict" and e["pointer"] == "/review_id", e
