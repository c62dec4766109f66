#!/usr/bin/env bash
# Sets up everything chartshot needs, idempotently and quickly when already done:
# Debian's chromium and the fonts the renders and tests rely on, npm ci, the build.
set -euo pipefail
cd "$(dirname "$0")/.."

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "chartshot needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# System packages: the browser and fonts (Latin sans, CJK, colour emoji).
missing=()
[ -x /usr/lib/chromium/chromium ] || [ -n "${CHROMIUM_PATH:-}" ] || missing+=(chromium)
# The families configs name most (Roboto, Open Sans, Lato, Noto Sans/Serif/Mono); DejaVu Sans
# Mono is what Mono and monospace draw with (src/render/fonts.ts).
fonts=(fonts-dejavu-core fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-noto-core fonts-noto-mono)
# PostgreSQL, Redis and nginx: the multi-instance store and the tests that start throwaway
# servers of each (a single box needs none of them running).
# bsdutils: script(1), which gives the CLI's progress test a terminal; util-linux: setpriv, which
# runs Chromium as another user when the service is root (the sandbox test checks it).
for pkg in bsdutils util-linux fonts-liberation fonts-noto-cjk fonts-noto-color-emoji "${fonts[@]}" fontconfig postgresql redis-server nginx; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} with apt" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node packages: npm ci only when package-lock.json changed since the last install.
stamp=node_modules/.chartshot-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

# Build: vendor the harness scripts and compile (incremental, a few seconds when nothing changed).
npm run --silent build
