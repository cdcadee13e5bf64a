#!/usr/bin/env bash
# Builds the root file system of the cc-server desktop image into ROOT (an empty or absent
# directory): a minimal Debian (debootstrap --variant=minbase) of the host's release, from
# the mirror the host's apt already uses, with Xvfb, openbox, xdotool, xclip, ImageMagick
# (`import` takes the screenshots), xrandr, xterm, then this folder's rootfs/ overlay.
# `cc-server rigs build-image` runs it as root and imports ROOT with `docker import`
# semantics (bollard create_image fromSrc), tagged by the hash of this folder's files.
#   usage: build.sh ROOT
# Environment: CC_DEBIAN_SUITE, CC_DEBIAN_MIRROR override what is read from the host;
# CC_DEBOOTSTRAP_CACHE (default /var/cache/cc-server/debootstrap) keeps downloaded .debs.
set -euo pipefail
root="${1:?usage: build.sh ROOT}"
here="$(cd "$(dirname "$0")" && pwd)"

packages=(
  xvfb openbox xdotool xclip imagemagick x11-xserver-utils x11-utils xterm
  xfonts-base procps
)

suite="${CC_DEBIAN_SUITE:-}"
if [ -z "$suite" ]; then suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"; fi
[ -n "$suite" ] || { echo "build.sh: cannot tell the Debian release (set CC_DEBIAN_SUITE)" >&2; exit 1; }

mirror="${CC_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  # The first Debian archive URI in the host's sources (deb822 or one-line format) that
  # serves "$suite" itself (not -security or -updates).
  mirror="$(awk -v s="$suite" '
    /^URIs:/ { uri=$2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s && uri != "") { print uri; exit } }
    /^deb / { for (i = 2; i <= NF; i++) if ($i == s) { print $(i-1); exit } }
  ' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
fi
command -v debootstrap >/dev/null || { echo "build.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }

cache="${CC_DEBOOTSTRAP_CACHE:-/var/cache/cc-server/debootstrap}"
mkdir -p "$cache" "$root"
# debootstrap mounts proc and sys inside ROOT while it works; never leave them mounted.
cleanup() { for m in proc sys dev/pts dev; do mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m" || true; done; }
trap cleanup EXIT

echo "debootstrap $suite from $mirror (${#packages[@]} packages + minbase)" >&2
include="$(IFS=,; echo "${packages[*]}")"
debootstrap --variant=minbase --cache-dir="$cache" --include="$include" "$suite" "$root" "$mirror" \
  | while IFS= read -r line; do case "$line" in I:\ Retrieving*|I:\ Validating*) ;; *) echo "$line" >&2 ;; esac; done
[ "${PIPESTATUS[0]}" = 0 ] || { echo "build.sh: debootstrap failed" >&2; exit 1; }

cp -a "$here/rootfs/." "$root/"
chmod 0755 "$root/usr/local/bin/"*
# The desktop runs as an unprivileged user (the container also drops every capability).
chroot "$root" useradd --create-home --uid 1000 --user-group --shell /bin/bash desk
# X's socket folder (an unprivileged Xvfb cannot create it).
install -d -m 1777 "$root/tmp/.X11-unix"
# Smaller image: no apt lists, caches, docs or man pages.
rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"*.bin "$root/var/cache/apt/archives/"*.deb \
  "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info"
echo "root file system ready: $(du -sh "$root" | cut -f1)" >&2
