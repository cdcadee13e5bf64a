"""The overhead of a bridged call (docs/bridge.md): the same tool of the same external
server (tests/mcp/bridge_server.py, FastMCP over Streamable HTTP), called directly and
through cc-server's bridge (`ext__echo`), by CLIENTS concurrent clients (the Python `mcp`
SDK over Streamable HTTP), CALLS calls each after a warm-up; p50/p99 per call.

    CC_SERVER_BIN=target/release/cc-server python benches/mcp/bridge_overhead.py [CLIENTS] [CALLS]

Run it with the venv's python (the one tests/mcp uses). Everything is on 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "mcp" / "bridge_server.py"


def free_port() -> int:
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"a server exited ({proc.returncode})")
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


async def run(url: str, tool: str, clients: int, calls: int) -> list[float]:
    lat: list[float] = []

    async def one() -> None:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=60) as s:
                await s.initialize()
                for _ in range(5):  # warm-up
                    await s.call_tool(tool, {"text": "warm"})
                for i in range(calls):
                    t = time.perf_counter()
                    r = await s.call_tool(tool, {"text": f"call {i}"})
                    lat.append(time.perf_counter() - t)
                    assert not r.is_error, r

    async with anyio.create_task_group() as tg:
        for _ in range(clients):
            tg.start_soon(one)
    return lat


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000


def main() -> None:
    clients = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    cc = os.environ["CC_SERVER_BIN"]
    tmp = Path(tempfile.mkdtemp(prefix="bridge-bench-"))
    ext_port = free_port()
    ext = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(ext_port)],
        env={**os.environ, "BRIDGE_STATE": str(tmp / "state")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    procs = [ext]
    try:
        wait_port(ext_port, ext)
        cfg = tmp / "config.toml"
        cfg.write_text(
            f'[[bridge]]\nname = "ext"\nurl = "http://127.0.0.1:{ext_port}/mcp"\n[bridge.tools.echo]\napproval = false\n'
        )
        log = tmp / "cc.log"
        with open(log, "wb") as lf:
            cc_proc = subprocess.Popen(
                [cc, "--data-dir", str(tmp / "data"), "--config", str(cfg), "serve", "--port", "0",
                 "--max-sessions", "1000", "--max-sessions-per-principal", "1000"],
                stdout=lf, stderr=subprocess.STDOUT, env={**os.environ, "CC_LOG": "warn"},
            )  # fmt: skip
        procs.append(cc_proc)
        deadline, port = time.monotonic() + 60, None
        while time.monotonic() < deadline and port is None:
            m = re.search(rb"serving MCP on http://127\.0\.0\.1:(\d+)/mcp", log.read_bytes())
            port = int(m.group(1)) if m else None
            time.sleep(0.1)
        assert port, log.read_text()
        rows = []
        for label, url, tool in [
            ("direct", f"http://127.0.0.1:{ext_port}/mcp", "echo"),
            ("bridged", f"http://127.0.0.1:{port}/mcp", "ext__echo"),
            ("direct", f"http://127.0.0.1:{ext_port}/mcp", "echo"),
            ("bridged", f"http://127.0.0.1:{port}/mcp", "ext__echo"),
        ]:
            t = time.perf_counter()
            lat = anyio.run(run, url, tool, clients, calls)
            wall = time.perf_counter() - t
            rows.append((label, pct(lat, 0.5), pct(lat, 0.99), statistics.mean(lat) * 1000, len(lat) / wall))
        print(f"{clients} clients x {calls} calls (after 5 warm-up calls each), two interleaved rounds")
        print(f"{'path':8} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'calls/s':>8}")
        for r in rows:
            print(f"{r[0]:8} {r[1]:8.2f} {r[2]:8.2f} {r[3]:8.2f} {r[4]:8.0f}")
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    main()
