# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and the compiled service only, as a non-root user.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/app/.data \
    REPLAY_DIR=/app/replays
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The recorded match rehearsals can play (src/playback/recorded-match.ts resolves it beside dist/).
COPY data/replays ./data/replays
RUN mkdir -p /app/.data /app/replays && chown -R node:node /app/.data /app/replays
USER node
EXPOSE 5100 5101 5200
CMD ["node", "dist/main/index.js"]
