# tms-ingest: the service image. `npm ci` installs the locked dependencies and (postinstall) generates
# the Prisma client; at start the server applies pending migrations, then listens on PORT.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so the layer is reused while only the code changes. The postinstall script
# (`prisma generate`) needs the schema and prisma.config.ts.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm ci --omit=dev && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src

USER node
EXPOSE 4000
ENV PORT=4000 HOST=0.0.0.0

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# What `npm start` runs (tsx src/main.ts: migrate, then serve), started without the npm and tsx wrapper
# processes so SIGTERM reaches the server itself and in-flight requests finish (graceful shutdown).
CMD ["node", "--import", "tsx", "src/main.ts"]
