"""An agent runtime written for the tests: a real MCP client (the official Python SDK)
that cc-server starts as an agent's run (runtime family mcp-cli) and that calls back as
itself.

It does what a coding agent's command line does with cc-server, minus the model: it reads
its brief (stdin, and CC_BRIEF: they must agree), connects to CC_MCP_URL with its per-run
token CC_MCP_TOKEN, heartbeats, keeps a checklist with todo_write / todo_read, reads the
question it was started for (CC_SPACE_ID, CC_MESSAGE_ID) and answers it with send_message
(reply_to the question). Behaviour is chosen by its fixed launch arguments (the profile's):

  --prefix TEXT   the answer is TEXT + the question (default "echo: ")
  --delay SECS    wait before answering (capacity tests)
  --hang          never answer: start a grandchild `sleep` and sleep (timeout, kill -9)
  --serve         stay running: subscribe to the agent's spaces and answer every new
                  question (a message that replies to nothing, from someone else)
  --report FILE   append one JSON line of what the run saw (its environment, its
                  list_repos, its todos) to FILE
  --edit          in each worktree list_repos gives, write a file (worktree tests)
  --submit-output FILE  call submit_output with each payload of FILE (a JSON array), in
                  order, and put each answer (is_error, structured content) in the report
                  as `submitted` (pipeline runs)
  --review        a reviewer (start_ai_review's brief): raise a finding on the brief's
                  area (its first changed symbol), confirm the peers' findings posted into
                  the review space (--review-peers of them, waiting up to 90 s), then give
                  a verdict (--review-verdict, --review-confidence) and end
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys

import httpx2 as httpx
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
import mcp_types as types


def structured(result) -> dict:
    if result.is_error:
        text = result.content[0].text if result.content else "?"
        raise RuntimeError(f"tool error: {text}")
    return result.structured_content or {}


class Agent:
    def __init__(self, session: ClientSession, args: argparse.Namespace):
        self.s = session
        self.args = args
        self.name = os.environ["CC_AGENT_NAME"]
        self.agent_id = os.environ["CC_AGENT_ID"]
        self.answered: set[str] = set()
        self.wake = asyncio.Event()

    async def call(self, tool: str, **arguments) -> dict:
        return structured(await self.s.call_tool(tool, arguments))

    async def answer(self, space_id: str, message_id: str) -> None:
        if message_id in self.answered:
            return
        self.answered.add(message_id)
        question = None
        after = None
        while question is None:
            page = await self.call("get_messages", space_id=space_id, limit=200, **({"after": after} if after else {}))
            for m in page["messages"]:
                if m["id"] == message_id:
                    question = m
            if not page["more"]:
                break
            after = page["next_after"]
        if question is None:
            raise RuntimeError(f"question {message_id} is not in space {space_id}")
        if self.args.delay:
            await asyncio.sleep(self.args.delay)
        await self.call(
            "send_message", space_id=space_id, reply_to=message_id, text=self.args.prefix + question["text"]
        )

    async def listen(self) -> None:
        """Subscribes to the agent's spaces, and skips what is in them already."""
        self.cursors: dict[str, str | None] = {}
        for sp in (await self.call("list_spaces", mine=True))["spaces"]:
            self.cursors[sp["id"]] = None
            await self.s.subscribe_resource(sp["uri"])
        for sid in self.cursors:
            while True:
                after = self.cursors[sid]
                page = await self.call("get_messages", space_id=sid, limit=200, **({"after": after} if after else {}))
                if page.get("next_after"):
                    self.cursors[sid] = page["next_after"]
                if not page["more"]:
                    break

    async def serve(self) -> None:
        """Answers every new question in the agent's spaces, as they come."""
        cursors = self.cursors
        await self.call("agent_heartbeat", status="idle", note="serving")
        while True:
            await self.wake.wait()
            self.wake.clear()
            for sid, after in list(cursors.items()):
                page = await self.call("get_messages", space_id=sid, limit=200, **({"after": after} if after else {}))
                for m in page["messages"]:
                    cursors[sid] = m["id"]
                    if m.get("reply_to") is None and m["sender"].get("agent_id") != self.agent_id:
                        await self.answer(sid, m["id"])
                if page["more"]:
                    self.wake.set()


async def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--prefix", default="echo: ")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--hang", action="store_true")
    p.add_argument("--serve", action="store_true")
    p.add_argument("--report")
    p.add_argument("--edit", action="store_true")
    p.add_argument("--submit-output")
    p.add_argument("--review", action="store_true")
    p.add_argument("--review-priority", default="P1")
    p.add_argument("--review-peers", type=int, default=1)
    p.add_argument("--review-verdict", default="hold")
    p.add_argument("--review-confidence", type=float, default=0.8)
    args = p.parse_args()

    brief = sys.stdin.read()
    if brief != os.environ.get("CC_BRIEF"):
        print("the brief on stdin is not CC_BRIEF", file=sys.stderr)
        return 3
    if args.hang:
        # A grandchild, which must die with the run's process group.
        subprocess.Popen(["sleep", "1000"])

    agent_box: list[Agent] = []

    async def on_message(msg) -> None:
        if isinstance(msg, types.ResourceUpdatedNotification):
            if agent_box:
                agent_box[0].wake.set()

    headers = {"Authorization": f"Bearer {os.environ['CC_MCP_TOKEN']}"}
    async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=None)) as http:
        async with streamable_http_client(os.environ["CC_MCP_URL"], http_client=http) as (read, write, *_):
            async with ClientSession(read, write, message_handler=on_message) as session:
                await session.initialize()
                agent = Agent(session, args)
                agent_box.append(agent)
                await agent.call("agent_heartbeat", status="active", note="started")
                todos = [
                    {"id": "read", "content": "read the brief", "status": "completed"},
                    {"id": "answer", "content": "answer the question", "status": "in_progress"},
                ]
                await agent.call("todo_write", todos=todos)
                back = await agent.call("todo_read")
                if back["todos"] != todos:
                    print(f"todo_read gave {back['todos']}", file=sys.stderr)
                    return 4
                report = {
                    "env": {k: v for k, v in os.environ.items() if k.startswith("CC_") and k != "CC_MCP_TOKEN"},
                    "brief": brief,
                    "todo_conversation": back["conversation"],
                }
                if args.submit_output:
                    with open(args.submit_output) as f:
                        payloads = json.load(f)
                    report["submitted"] = []
                    for payload in payloads:
                        res = await session.call_tool("submit_output", {"output": payload})
                        report["submitted"].append({"is_error": res.is_error, "content": res.structured_content})
                if args.report or args.edit:
                    repos = await agent.call("list_repos")
                    report["repos"] = repos["repos"]
                    if args.edit:
                        for r in repos["repos"]:
                            if r.get("worktree"):
                                path = os.path.join(r["worktree"]["path"], f"edit-{os.environ['CC_RUN_ID']}.txt")
                                with open(path, "w") as f:
                                    f.write("work of " + os.environ["CC_RUN_ID"] + "\n")
                        report["search"] = await agent.call("search_code", query="normalize")
                if args.hang:
                    if args.report:
                        with open(args.report, "a") as f:
                            f.write(json.dumps(report) + "\n")
                    await asyncio.sleep(1000)
                    return 0
                space, message = os.environ.get("CC_SPACE_ID"), os.environ.get("CC_MESSAGE_ID")
                if args.review:
                    report["review"] = await review(agent, brief, space)
                if args.serve:
                    # Listening before answering: the next question finds it listening.
                    await agent.listen()
                # The report before the answer: whoever asked reads it once answered.
                if args.report:
                    with open(args.report, "a") as f:
                        f.write(json.dumps(report) + "\n")
                if space and message:
                    await agent.answer(space, message)
                todos[1]["status"] = "completed"
                await agent.call("todo_write", todos=todos)
                if args.serve:
                    await agent.serve()
                await agent.call("agent_heartbeat", status="idle", note="done")
    return 0


async def review(agent: Agent, brief: str, space: str | None) -> dict:
    """--review: one finding on the brief's area, the peers' findings confirmed, a verdict."""
    fields = dict(line.split(": ", 1) for line in brief.splitlines() if line[:1].isalpha() and ": " in line)
    review_id, area = fields["review_id"], fields["area"]
    # "- Modified function shop.pricing.price (shop/pricing.py:1), 2 callers"
    symbols = [line for line in brief.splitlines() if line.startswith("- ") and "(" in line and not line.startswith("- Removed")]
    where = symbols[0].rsplit("(", 1)[1].split(")", 1)[0]
    qualified = symbols[0].split(" (", 1)[0].split()[-1]
    file, line = where.rsplit(":", 1)
    mine = await agent.call(
        "add_review_node", review_id=review_id, area=area, file=file, line=int(line),
        priority=agent.args.review_priority, title=f"{qualified} changed: its callers need a test",
        body=f"{agent.name} read {qualified} and its callers",
    )  # fmt: skip
    confirmed: list[str] = []
    deadline = asyncio.get_running_loop().time() + 90
    while len(confirmed) < agent.args.review_peers and asyncio.get_running_loop().time() < deadline:
        after = None
        while True:
            page = await agent.call("get_messages", space_id=space, limit=200, **({"after": after} if after else {}))
            for m in page["messages"]:
                words = m["text"].split()
                if words[:1] == ["finding"] and m["sender"].get("agent_id") != agent.agent_id:
                    node = words[1]
                    if node not in confirmed:
                        await agent.call("confirm_review_node", node_id=node)
                        confirmed.append(node)
            if not page["more"]:
                break
            after = page["next_after"]
        await asyncio.sleep(0.3)
    verdict = await agent.call(
        "submit_reviewer_verdict", review_id=review_id, verdict=agent.args.review_verdict,
        confidence=agent.args.review_confidence, explanation=f"{agent.name} on {area}: {len(confirmed)} peer findings confirmed",
    )  # fmt: skip
    return {"node_id": mine["node_id"], "confirmed": confirmed, "verdict": verdict["verdict"]["verdict"]}


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
