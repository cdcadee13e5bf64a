"""Shared fixtures for the real-client MCP tests.

The tests start the real `cc-server` binary (path in CC_SERVER_BIN) against a
temporary data directory holding an indexed fixture repository, and talk to it
with the official Python MCP SDK (and, for bad input, with raw HTTP).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

# ---------------------------------------------------------------- the fixture repository

# A small multi-language repository with calls between functions:
#   Python:     main -> parse_config -> normalize ; main -> load_settings -> parse_config
#   TypeScript: UserService.load -> fetchUser -> formatName
#   Rust:       Cart::total -> compute_total -> apply_discount
FIXTURE_FILES: dict[str, str] = {
    "py/config.py": '''\
"""Configuration parsing."""


def normalize(value):
    """Lower-case and trim a configuration value."""
    return value.strip().lower()


def parse_config(text):
    """Parse the configuration text into a dictionary."""
    result = {}
    for line in text.splitlines():
        key, _, raw = line.partition("=")
        result[key] = normalize(raw)
    return result


def load_settings(path):
    """Read a settings file and parse it."""
    with open(path) as f:
        return parse_config(f.read())
''',
    "py/main.py": '''\
from config import load_settings, parse_config


def main():
    settings = load_settings("settings.ini")
    extra = parse_config("mode=Fast")
    print(settings, extra)


if __name__ == "__main__":
    main()
''',
    "web/users.ts": '''\
/** Formats a user's display name. */
export function formatName(name: string): string {
  return name.trim().toUpperCase();
}

/** Fetches a user by id and returns the display name. */
export function fetchUser(id: number): string {
  const raw = "user-" + id;
  return formatName(raw);
}

export class UserService {
  load(id: number): string {
    return fetchUser(id);
  }
}
''',
    "core/src/lib.rs": '''\
/// Applies the house discount to one price.
fn apply_discount(price: u32) -> u32 {
    price * 9 / 10
}

/// The discounted total of some prices.
pub fn compute_total(items: &[u32]) -> u32 {
    items.iter().map(|x| apply_discount(*x)).sum()
}

pub struct Cart {
    items: Vec<u32>,
}

impl Cart {
    pub fn total(&self) -> u32 {
        compute_total(&self.items)
    }
}
''',
}

REPO_NAME = "fixture"
WORKSPACE = "default"
TOKEN = "s3cret-test-token"


def line_of(path: str, needle: str) -> int:
    """1-based line of the first line of FIXTURE_FILES[path] containing needle."""
    for i, line in enumerate(FIXTURE_FILES[path].splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


# ---------------------------------------------------------------- the binary and data dir


@pytest.fixture(scope="session")
def cc_bin() -> str:
    b = os.environ.get("CC_SERVER_BIN")
    if not b:
        pytest.fail("set CC_SERVER_BIN to the built cc-server binary (tests/run does)", pytrace=False)
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.fail(f"CC_SERVER_BIN={b} is not an executable file", pytrace=False)
    return os.path.abspath(b)


@pytest.fixture(scope="session")
def fixtures_bin() -> str:
    """The product's command line with the MCP conformance suite's fixtures
    (`cc-server-conformance`, built from the tests crate): the approval and guardrail
    fixtures the policy tests call are not in the product."""
    b = os.environ.get("CC_FIXTURES_BIN")
    if not b:
        pytest.fail("set CC_FIXTURES_BIN to the built cc-server-conformance binary (tests/run does)", pytrace=False)
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.fail(f"CC_FIXTURES_BIN={b} is not an executable file", pytrace=False)
    return os.path.abspath(b)


@dataclass
class Indexed:
    repo: Path
    data: Path


@pytest.fixture(scope="session")
def indexed(cc_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    base = tmp_path_factory.mktemp("cc")
    repo = base / REPO_NAME
    for rel, text in FIXTURE_FILES.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    data = base / "data"
    data.mkdir()
    r = subprocess.run(
        [cc_bin, "--data-dir", str(data), "--quiet", "index", str(repo), "--workspace", WORKSPACE],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, f"index failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return Indexed(repo=repo.resolve(), data=data)


# ---------------------------------------------------------------- the HTTP server


@dataclass
class HttpServer:
    base: str  # http://127.0.0.1:PORT
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def sse_url(self) -> str:
        return f"{self.base}/sse"


def _start_http(cc_bin: str, data: Path, log: Path, extra: list[str], config: Path | None = None) -> HttpServer:
    # --port 0: the server picks a free port and names it on stderr.
    logf = open(log, "wb")
    global_args = ["--config", str(config)] if config else []
    proc = subprocess.Popen(
        [cc_bin, "--data-dir", str(data), *global_args, "serve", "--port", "0", *extra],
        stdin=subprocess.DEVNULL,
        stdout=logf,
        stderr=subprocess.STDOUT,
    )
    logf.close()
    deadline = time.monotonic() + 60
    pat = re.compile(rb"serving MCP on http://127\.0\.0\.1:(\d+)/mcp")
    while time.monotonic() < deadline:
        m = pat.search(log.read_bytes())
        if m:
            port = int(m.group(1))
            return HttpServer(base=f"http://127.0.0.1:{port}", port=port, proc=proc, log=log)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise AssertionError(f"cc-server serve did not start:\n{log.read_text(errors='replace')}")


def _stop(srv: HttpServer) -> None:
    if srv.proc.poll() is None:
        srv.proc.terminate()
        try:
            srv.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            srv.proc.kill()
            srv.proc.wait()


@pytest.fixture(scope="session")
def http_server(cc_bin: str, indexed: Indexed, tmp_path_factory: pytest.TempPathFactory):
    srv = _start_http(cc_bin, indexed.data, tmp_path_factory.mktemp("log") / "serve.log", [])
    yield srv
    _stop(srv)
    # A server that died while tests ran is a failure of its own.
    assert srv.proc.returncode in (0, -15), f"serve exited {srv.proc.returncode}:\n{srv.log.read_text()}"


@pytest.fixture(scope="session")
def token_server(cc_bin: str, indexed: Indexed, tmp_path_factory: pytest.TempPathFactory):
    srv = _start_http(cc_bin, indexed.data, tmp_path_factory.mktemp("log") / "serve-token.log", ["--token", TOKEN])
    yield srv
    _stop(srv)


def pytest_report_header(config):
    b = os.environ.get("CC_SERVER_BIN", "(CC_SERVER_BIN not set)")
    return [f"cc-server binary: {b}"]
