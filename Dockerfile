# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts/build-validators.mjs ./scripts/
RUN npm run build && npm prune --omit=dev
# uWebSockets.js ships a binary for every platform, architecture and Node ABI (139 MB): keep the
# one this stage's Node loads (the runtime stage has the same base image, so the same platform and
# Node; a linux/arm64 build keeps the arm64 one), then check that it loads.
COPY scripts/prune-uws.mjs ./scripts/
RUN node scripts/prune-uws.mjs node_modules/uWebSockets.js/dist/bin \
 && node --input-type=module -e "await import('uWebSockets.js')"

# Runtime stage: production dependencies and the compiled service only, as a non-root user.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/app/.data \
    REPLAY_DIR=/app/replays
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The recorded match rehearsals can play and the shard threads warm up on (src/playback/recorded-match.ts
# resolves it beside dist/; SHARD_WARMUP).
COPY data/replays ./data/replays
COPY scripts/healthcheck.mjs ./scripts/
RUN mkdir -p /app/.data /app/replays && chown -R node:node /app/.data /app/replays
USER node
EXPOSE 5100 5101 5200
# GET /status on the REST port, as deploy/docker-compose.yml checks it (REST_PORT, INSECURE or TLS).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
CMD ["node", "dist/main/index.js"]
