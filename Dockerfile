# syntax=docker/dockerfile:1
# Cobro in a container: `cobro serve` on Node 24, running the TypeScript sources directly with Node's own type
# stripping (no build step), as a non-root user, with a health check on /readyz. See README "Container" and
# compose.yaml for PostgreSQL with two servers.
ARG NODE_IMAGE=node:24-bookworm-slim

# Stage 1: production dependencies only. The dev dependencies (the pinned `node` package, TypeScript, vitest,
# playwright) are for development; the image's own Node 24 runs the service.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Stage 2: the runtime. No npm in the start path: `node bin/cobro.js` is the CLI.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --chown=root:root src ./src
# src/client re-exports the typed client's sources; the server never loads it, but the tree stays whole.
COPY --chown=root:root packages/client/src ./packages/client/src
# The code belongs to root and is read-only for the service; only DATA_DIR (embedded database, sandbox key,
# operator socket) is writable, by the unprivileged `node` user of the base image.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# /readyz answers 200 when the database answers; the slim image has no curl, so Node's fetch asks.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/cobro.js"]
CMD ["serve"]
