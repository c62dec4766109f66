# chartshot on a Debian-based Node 20 image, with Debian's chromium and the fonts.
FROM node:20-bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-cjk fonts-noto-color-emoji fontconfig python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data CHROMIUM_PATH=/usr/lib/chromium/chromium
RUN mkdir -p /data && chown node:node /data
VOLUME /data
EXPOSE 8080
USER node
CMD ["node", "dist/cli.js", "serve"]
