# One image for the api, the worker and the MCP gateway; docker-compose.yml picks the command.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/mcp-gateway/package.json apps/mcp-gateway/
COPY apps/web/package.json apps/web/
COPY apps/worker/package.json apps/worker/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/domain/package.json packages/domain/
COPY packages/jobs/package.json packages/jobs/
COPY packages/runtime/package.json packages/runtime/
COPY packages/sdk/package.json packages/sdk/
RUN npm ci --no-audit --no-fund
COPY apps apps
COPY packages packages
RUN npx turbo run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 4000
CMD ["node", "--enable-source-maps", "apps/api/dist/main.js"]
