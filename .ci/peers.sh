#!/usr/bin/env bash
# Installs the Debian packages the tests run against (real peers, never mocks): proxies
# (tinyproxy, microsocks, socat, openssl for a test CA), sqlite3, Chromium for the browse
# page, python3-aiohttp and python3-protobuf for the libSQL project's Hrana test server
# (../shared/vendor/hrana-test-server), prometheus (promtool checks /metrics), systemd
# (systemd-analyze checks the unit), zsh and fish (the completion scripts load in them), and
# faketime (libfaketime speeds up a real forward's clock: minutes of its schedule in seconds).
# Only what is missing is installed; as root, or through sudo.
set -euo pipefail
PACKAGES=(tinyproxy microsocks socat openssl sqlite3 chromium python3-aiohttp python3-protobuf
  prometheus systemd zsh fish faketime)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "peers: apt-get install ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
