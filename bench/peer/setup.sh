#!/usr/bin/env bash
# Sets up the benchmark's peer (chartjs-node-canvas on node-canvas) and wrk, idempotently; run by
# npm run bench only. node-canvas has no usable prebuilt binary here: it builds against cairo/pango.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
for pkg in build-essential pkg-config python3 libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev wrk; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench setup: installing ${missing[*]} with apt" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when package-lock.json changed since the last install (or the build is missing).
stamp=node_modules/.peer-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -f node_modules/canvas/build/Release/canvas.node ]; then
  echo "bench setup: npm ci in bench/peer (builds node-canvas from source, about a minute)" >&2
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
