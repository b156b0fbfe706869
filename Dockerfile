# One image serves every function; each Knative Service picks one with FUNCTIONS.
#
# Build stage: bin/, functions/ and shared/ with their dependencies compiled to JavaScript by
# `npm run build` (scripts/build.ts) into dist/nats-operator/, one chunk per function, so a pod
# starts without type stripping and loads only the function it serves (bench/runtime.ts).
# Both bases are pinned by digest: a rebuild takes the same Node until someone moves the pin.
ARG BUILD_IMAGE=node:24-bookworm-slim@sha256:3638d9a6fe4030bd716be989438248074489337ba3275657f93595428be4fc03
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY bin ./bin
COPY functions ./functions
COPY shared ./shared
COPY scripts/build.ts ./scripts/build.ts
RUN node scripts/build.ts

# Runtime: distroless Node 24. The bundle needs no node_modules, so no npm, no shell and no
# package manager ship; it runs as the image's non-root user (65532).
FROM ${RUNTIME_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY package.json ./
COPY knative ./knative
COPY --from=build /app/dist/nats-operator ./dist/nats-operator
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/nodejs/bin/node", "dist/nats-operator/nats-operator.mjs"]
CMD ["serve"]
