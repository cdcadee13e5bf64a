#!/usr/bin/env bash
# What the desktop rig tests (rigs/tests/it/desktop.rs) need, idempotently:
#   1. Debian's docker.io (dockerd, runc, containerd) and debootstrap; openssl and
#      openssh-server for the remote-engine tests (a second dockerd over TLS and ssh);
#   2. a reachable dockerd: when the socket does not answer, dockerd is started in the
#      background as root, with its pidfile and log under the CI cache dir
#      ($CC_CI_CACHE, default ~/.cache/cc-server-ci/dockerd/), and we wait for the socket.
#      Run standalone, it is left running (stop it with: kill "$(cat
#      ~/.cache/cc-server-ci/dockerd/dockerd.pid)"); tests/run stops it when it ends if it
#      was that run that started it (the images stay on disk for the next run);
#   3. the desktop image (`cc-server rigs build-image`; a no-op when the image of the
#      current recipe hash is already loaded).
# tests/run calls this before cargo nextest. Standalone: bash tests/setup-docker.sh
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*" >&2; }

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    if [ ! -f /var/lib/apt/lists/.cc-updated ]; then apt-get update -qq && touch /var/lib/apt/lists/.cc-updated; fi
    # policy-rc.d-less containers: the package scripts cannot start a service here, which is fine.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

apt_install docker.io debootstrap ca-certificates tar openssl openssh-server openssh-client

cache="${CC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cc-server-ci}/dockerd"
mkdir -p "$cache"
sock=/var/run/docker.sock
docker_ok() { [ -S "$sock" ] && /usr/bin/docker -H "unix://$sock" version >/dev/null 2>&1; }

if ! docker_ok; then
  if [ -f "$cache/dockerd.pid" ] && kill -0 "$(cat "$cache/dockerd.pid")" 2>/dev/null; then
    say "dockerd (pid $(cat "$cache/dockerd.pid")) is starting; waiting for $sock"
  else
    [ "$(id -u)" = 0 ] || { echo "dockerd is not running and this is not root: start dockerd, then rerun" >&2; exit 1; }
    say "starting dockerd (log: $cache/dockerd.log)"
    rm -f "$cache/dockerd.pid"
    # setsid: its own session, so the test run's process group signals do not reach it.
    setsid /usr/sbin/dockerd --pidfile "$cache/dockerd.pid" >>"$cache/dockerd.log" 2>&1 </dev/null &
  fi
  for _ in $(seq 1 120); do docker_ok && break; sleep 0.5; done
  docker_ok || { echo "dockerd did not answer on $sock within 60 s; last log lines:" >&2; tail -n 20 "$cache/dockerd.log" >&2; exit 1; }
fi
say "dockerd $(/usr/bin/docker -H "unix://$sock" version --format '{{.Server.Version}} (API {{.Server.APIVersion}})')"

say "desktop image"
cargo run --quiet -p cc-server -- rigs build-image
