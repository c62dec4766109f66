# chartshot on a Debian-based Node 20 image, with Debian's chromium and the fonts.
# BASE_IMAGE: any Debian bookworm image with Node 20 laid out as the official one (node, npm and
# the headers under /usr/local, a `node` user 1000:1000); scripts/container-smoke.sh builds one
# with debootstrap where no registry is reachable.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-cjk fonts-noto-color-emoji fontconfig python3 make g++ \
      fonts-dejavu-core fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-noto-core fonts-noto-mono \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data CHROMIUM_PATH=/usr/lib/chromium/chromium
# DATA_DIR (SQLite database, master.key) is for the service's user only; with DATABASE_URL and
# MASTER_KEY set (several instances: docker-compose.yml) the records live in PostgreSQL instead.
RUN install -d -m 0700 -o node -g node /data
VOLUME /data
EXPOSE 8080
# An unprivileged user: Chromium starts as this user WITH its sandbox (user namespaces). Docker's
# default seccomp profile refuses unprivileged user namespaces, so run the container with a
# profile that allows clone/unshare(CLONE_NEWUSER) (e.g. Chromium's usual chrome.json); otherwise
# Chromium falls back to --no-sandbox, logs a warning and /v1/status shows renderer.sandbox "off".
USER node
# --no-memory-reducer: as npm start (README "Performance"): an idle server keeps its optimised code
CMD ["node", "--no-memory-reducer", "dist/cli.js", "serve"]
