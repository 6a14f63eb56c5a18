# syntax=docker/dockerfile:1
# Two stages: TypeScript is compiled with the dev dependencies, then the image keeps only the
# production ones and the compiled JavaScript. `npm ci --omit=dev` runs the `prepare` build
# script, which finds no TypeScript there and keeps the dist/ copied in.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The client package is an npm workspace: its package.json is part of the install.
COPY packages ./packages
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages ./packages
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The same command as `npm start`, without npm in between, so SIGTERM reaches the service.
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "--no-allocation-site-pretenuring", "dist/src/main.js"]
