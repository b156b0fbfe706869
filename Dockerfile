# One image serves every function; the Knative Service picks one with FUNCTIONS.
# Node 24 runs the TypeScript sources directly (type stripping): no build step.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY functions ./functions
COPY shared ./shared
COPY knative ./knative
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["node", "bin/nats-operator.ts"]
CMD ["serve"]
