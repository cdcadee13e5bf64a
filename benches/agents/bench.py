"""Agents and messaging figures (issue 29), through real MCP clients (the Python SDK) over
Streamable HTTP against a `cc-server serve` this script starts on 127.0.0.1:

  fanout  N messages sent by S concurrent senders to one space that C clients subscribe
          to (resources/subscribe of cc://spaces/{id}/messages): messages acknowledged per
          second, and notifications delivered per second until every client heard every
          message (a notification names the resource; a client then reads it)
  ask     ask_agent round trips to an agent already running (tests/mcp/agent.py --serve,
          subscribed to its spaces): p50 / p99 over K questions, one at a time
  history get_messages on a space of M messages (rows written straight into the store
          with the server stopped): p50 / p99 of the first page, a page from the middle
          and the last page (limit 50)

  benches/agents/bench.py [--bin target/release/cc-server] [--postgres ADMIN_URL]
      [--messages 2000] [--senders 4] [--clients 64] [--asks 200] [--history 1000000]

SQLite in a temporary folder unless --postgres names a server (a database is created for
the run: tests/postgres.sh's URL will do). The clients, the agent and the server share this
machine's cores: read the figures as a lower bound on the server, with the client load
noted. Prints `key=value` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[2]
AGENT_PY = ROOT / "tests/mcp/agent.py"
OPERATOR = "bench-operator-token"
WS = "bench"


def log(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Hub:
    def __init__(self, cc_bin: str, base: Path, postgres: str | None):
        self.cc_bin, self.base = cc_bin, base
        self.data = base / "data"
        self.data.mkdir()
        self.store: list[str] = []
        self.pg_url = None
        if postgres:
            db = f"agents_bench_{uuid.uuid4().hex[:10]}"
            subprocess.run(["psql", postgres, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
            self.pg_url = postgres.rsplit("/", 1)[0] + "/" + db
            self.store = ["--store", self.pg_url]
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def cli(self, *args: str) -> str:
        r = subprocess.run([self.cc_bin, "--data-dir", str(self.data), *self.store, "--quiet", *args],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
        if r.returncode != 0:
            raise SystemExit(f"cc-server {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}")
        return r.stdout

    def setup(self) -> None:
        repo = self.base / "repo"
        repo.mkdir()
        (repo / "app.py").write_text("def main():\n    return 1\n")
        (self.data / "config.toml").write_text(f'[runtimes]\nallow = ["{sys.executable}"]\nrun_timeout_secs = 3600\n')
        self.cli("index", str(repo), "--workspace", WS)
        self.cli("profiles", "add", "serve", "--workspace", WS, "--family", "mcp-cli", "--timeout", "3600",
                 "--", sys.executable, str(AGENT_PY), "--serve")  # fmt: skip
        self.cli("agents", "add", "echo", "--workspace", WS, "--runtime", "serve", "--capacity", "1")

    def start(self) -> None:
        logf = open(self.base / "serve.log", "wb")
        self.proc = subprocess.Popen(
            [self.cc_bin, "--data-dir", str(self.data), "serve", "--port", "0", *self.store,
             "--operator-token", OPERATOR],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
        )  # fmt: skip
        pat = re.compile(rb"serving MCP on (http://127\.0\.0\.1:\d+/mcp)")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            m = pat.search((self.base / "serve.log").read_bytes())
            if m:
                self.url = m.group(1).decode()
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit("the server did not start:\n" + (self.base / "serve.log").read_text(errors="replace"))

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def cpu_s(self) -> float:
        """The server's CPU time so far (user + system), seconds."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


@asynccontextmanager
async def client(hub: Hub, on_message=None):
    headers = {"Authorization": f"Bearer {OPERATOR}"}
    async with streamable_http_client(hub.url, http_client=create_mcp_http_client(headers=headers)) as (r, w):
        async with ClientSession(r, w, read_timeout_seconds=600, message_handler=on_message) as s:
            await s.initialize()
            yield s


async def call(s: ClientSession, tool: str, **args) -> dict:
    res = await s.call_tool(tool, args)
    if res.is_error:
        raise SystemExit(f"{tool}({args}) failed: {res.content}")
    return res.structured_content or {}


async def ask_bench(hub: Hub, asks: int) -> tuple[str, str]:
    async with client(hub) as s:
        first = await call(s, "ask_agent", workspace_id=WS, to_agent_name="echo", question="warm up", timeout_seconds=120)
        assert first["answered"], first
        for i in range(5):  # the agent is running and subscribed now
            await call(s, "ask_agent", workspace_id=WS, to_agent_name="echo", question=f"warm {i}", timeout_seconds=60)
        times = []
        for i in range(asks):
            t = time.perf_counter()
            got = await call(s, "ask_agent", workspace_id=WS, to_agent_name="echo", question=f"q{i}", timeout_seconds=60)
            times.append((time.perf_counter() - t) * 1000)
            assert got["answered"] and got["answer"] == f"echo: q{i}", got
        print(f"ask_agent_round_trips={asks}")
        print(f"ask_agent_p50_ms={pct(times, 50):.1f}")
        print(f"ask_agent_p99_ms={pct(times, 99):.1f}")
        print(f"ask_agent_mean_ms={statistics.mean(times):.1f}")
        return first["space_id"], first["question_id"]


async def fanout_bench(hub: Hub, space: str, anchor: str, n: int, senders: int, clients: int) -> None:
    uri = f"cc://spaces/{space}/messages"
    counts = [0] * clients
    all_heard = asyncio.Event()
    done_clients = 0
    last_heard = [0.0]

    def handler(i: int):
        async def on(msg) -> None:
            nonlocal done_clients
            if isinstance(msg, types.ResourceUpdatedNotification):
                if str(msg.params.uri) == uri:
                    counts[i] += 1
                    last_heard[0] = time.perf_counter()
                    if counts[i] == n:
                        done_clients += 1
                        if done_clients == clients:
                            all_heard.set()

        return on

    async with asyncio.TaskGroup() as tg:
        ready = asyncio.Event()
        stop = asyncio.Event()
        subscribed = [0]

        async def listener(i: int) -> None:
            async with client(hub, handler(i)) as s:
                await s.subscribe_resource(uri)
                subscribed[0] += 1
                if subscribed[0] == clients:
                    ready.set()
                await stop.wait()

        for i in range(clients):
            tg.create_task(listener(i))
        await asyncio.wait_for(ready.wait(), 300)
        log(f"{clients} clients subscribed; server RSS {hub.rss_mb():.1f} MB")
        acked = [0]

        async def sender(k: int, count: int) -> None:
            async with client(hub) as s:
                for j in range(count):
                    await call(s, "send_message", workspace_id=WS, space_id=space, text=f"m {k}.{j}", reply_to=anchor)
                    acked[0] += 1

        per = [n // senders + (1 if k < n % senders else 0) for k in range(senders)]
        t0 = time.perf_counter()
        cpu0, mine0 = hub.cpu_s(), time.process_time()
        async with asyncio.TaskGroup() as sg:
            for k in range(senders):
                sg.create_task(sender(k, per[k]))
        sent_s = time.perf_counter() - t0
        try:
            await asyncio.wait_for(all_heard.wait(), 300)
        except TimeoutError:
            pass
        heard_s = max(last_heard[0] - t0, 1e-9)
        server_cpu, client_cpu = hub.cpu_s() - cpu0, time.process_time() - mine0
        delivered = sum(counts)
        stop.set()
    print(f"fanout_messages={n} fanout_senders={senders} fanout_clients={clients}")
    print(f"fanout_sent_per_s={n / sent_s:.0f}")
    print(f"fanout_delivered={delivered} of {n * clients}")
    print(f"fanout_delivered_per_s={delivered / heard_s:.0f}")
    print(f"fanout_all_heard_after_s={heard_s:.2f} (sending took {sent_s:.2f})")
    # Where the time went: one core is heard_s of CPU; the clients are one Python process.
    print(f"fanout_server_cpu_s={server_cpu:.1f} fanout_client_cpu_s={client_cpu:.1f}")


def fill_history(hub: Hub, space: str, m: int) -> None:
    """Writes M messages into `space` with the server stopped, numbered after its last."""
    t = time.perf_counter()
    if hub.pg_url:
        sql = f"""
        BEGIN;
        INSERT INTO messages (id, space_id, seq, sender_kind, sender_name, sender_agent_id, text, reply_to, created_at)
        SELECT 'msg-bench-' || g, '{space}', s.next_seq + 1 + g, 'operator', 'operator', NULL,
               'history message ' || g || ' about the configuration parser and its tests', NULL,
               extract(epoch from now())::bigint
        FROM spaces s, generate_series(0, {m - 1}) g WHERE s.id = '{space}';
        UPDATE spaces SET next_seq = next_seq + {m} WHERE id = '{space}';
        COMMIT;
        ANALYZE messages;
        """
        subprocess.run(["psql", hub.pg_url, "-qv", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True)
    else:
        db = sqlite3.connect(hub.data / "workspace.sqlite3")
        (next_seq,) = db.execute("SELECT next_seq FROM spaces WHERE id = ?", (space,)).fetchone()
        now = int(time.time())
        rows = (
            (f"msg-bench-{g}", space, next_seq + 1 + g, "operator", "operator", None,
             f"history message {g} about the configuration parser and its tests", None, now)
            for g in range(m)
        )  # fmt: skip
        with db:
            db.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            db.execute("UPDATE spaces SET next_seq = next_seq + ? WHERE id = ?", (m, space))
        db.execute("ANALYZE")
        db.close()
    log(f"wrote {m} messages in {time.perf_counter() - t:.1f} s")


async def history_bench(hub: Hub, space: str, m: int, samples: int) -> None:
    async with client(hub) as s:
        mid, last = f"msg-bench-{m // 2}", f"msg-bench-{m - 60}"
        for name, after in (("first", None), ("middle", mid), ("last", last)):
            args = {"workspace_id": WS, "space_id": space, "limit": 50}
            if after:
                args["after"] = after
            times = []
            for i in range(samples + 10):
                t = time.perf_counter()
                got = await call(s, "get_messages", **args)
                if i >= 10:
                    times.append((time.perf_counter() - t) * 1000)
            assert len(got["messages"]) == 50, (name, len(got["messages"]))
            print(f"get_messages_{name}_page_p50_ms={pct(times, 50):.2f} p99_ms={pct(times, 99):.2f}")
    print(f"history_messages={m}")


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / "target/release/cc-server"))
    ap.add_argument("--postgres", help="a PostgreSQL admin URL (a database is created for the run)")
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--senders", type=int, default=4)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--asks", type=int, default=200)
    ap.add_argument("--history", type=int, default=1_000_000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--only", choices=["fanout", "ask", "history"], action="append")
    a = ap.parse_args()
    only = set(a.only or ["fanout", "ask", "history"])
    with tempfile.TemporaryDirectory(prefix="cc-agents-bench-") as tmp:
        hub = Hub(a.bin, Path(tmp), a.postgres)
        print(f"backend={'postgres' if a.postgres else 'sqlite'} cores={os.cpu_count()}")
        hub.setup()
        hub.start()
        try:
            space, anchor = await ask_bench(hub, a.asks if "ask" in only else 1)
            if "fanout" in only:
                await fanout_bench(hub, space, anchor, a.messages, a.senders, a.clients)
            print(f"server_rss_mb={hub.rss_mb():.1f}")
        finally:
            hub.stop()
        if "history" in only:
            fill_history(hub, space, a.history)
            hub.start()
            try:
                await history_bench(hub, space, a.history, a.samples)
            finally:
                hub.stop()


if __name__ == "__main__":
    asyncio.run(main())
