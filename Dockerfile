# tms-ingest: the service image, in two stages (docs/guides/production-build.md).
# build:   every dependency, then `npm run generate` (Prisma client) and `npm run build` (src/ → dist/).
# runtime: production dependencies (no install scripts), the migrations and dist/ only; a non-root user;
#          node is PID 1's command, without npm in between, so `docker stop`'s SIGTERM reaches the server.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so the layer is reused while only the code changes.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY prisma.config.ts tsconfig.json ./
COPY prisma ./prisma
COPY scripts/build.js ./scripts/build.js
COPY src ./src
RUN npm run generate && npm run build

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# At start the server applies pending migrations from prisma/ (schema and migrations, read at run time).
COPY prisma ./prisma
COPY --from=build /app/dist ./dist
# The embedded database's default DATA_DIR (./data), writable by the service's user.
RUN mkdir -p /app/data && chown node:node /app/data

USER node
EXPOSE 4000
ENV PORT=4000 HOST=0.0.0.0
# Footprint (docs/guides/production-build.md): glibc malloc with two arenas, and blocks of 32 KB and more
# (V8's compiler zones) mapped on their own, so memory freed after start-up goes back to the system.
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=32768

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# What `npm start` runs: migrate, then serve; SIGTERM/SIGINT stop it gracefully (exit 0).
CMD ["node", "--max-semi-space-size=2", "--wasm-tiering-budget=18000000", "--enable-source-maps", "dist/main.js"]
