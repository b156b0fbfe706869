#!/usr/bin/env bash
# Builds Knative Serving and its networking layer from their published Go
# modules, for the tests and the `cluster:up -- --knative` control plane that
# run functions as Knative Services:
#   bin/<name>   Serving's controller, webhook, activator, autoscaler and queue
#                (the queue-proxy sidecar), named as in ko://knative.dev/serving/cmd/<name>
#   bin/traefik  Traefik, whose Knative provider implements KIngress
#   config/      Serving's core manifests and the CRDs it needs from
#                knative.dev/networking and knative.dev/caching, copied unchanged
# Serving is v0.50.0, the release beside Eventing v0.50: v0.51.0 needs a
# knative.dev/pkg version the module proxy refuses (403).
# Built only when asked for; cached like build.sh under $CACHE/serving-<key>,
# where key hashes the module files, `go version` and the ldflags.
# The last line printed is always `test-infra: serving <dir>`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
ldflags="-s -w"
commands=(controller webhook activator autoscaler queue)

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build Knative Serving)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in serving/go.mod serving/go.sum serving/tools.go traefik/go.mod traefik/go.sum traefik/tools.go build-serving.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n' "$go_version"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/serving-$key"

if [[ -f "$final/.complete" ]]; then
  echo "test-infra: serving cache hit $final"
  echo "test-infra: serving $final"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.serving-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/config"

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
total=$SECONDS
echo "test-infra: building Knative Serving and Traefik into $final ($go_version)"

cd "$here/serving"
go mod download knative.dev/serving knative.dev/networking knative.dev/caching
for c in "${commands[@]}"; do
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/$c" "knative.dev/serving/cmd/$c"
  echo "test-infra: built $c in $((SECONDS - start))s"
done
serving_dir="$(go list -m -f '{{.Dir}}' knative.dev/serving)"
networking_dir="$(go list -m -f '{{.Dir}}' knative.dev/networking)"
caching_dir="$(go list -m -f '{{.Dir}}' knative.dev/caching)"
mkdir -p "$tmp/config/core" "$tmp/config/networking" "$tmp/config/caching"
(cd "$serving_dir/config/core" && find . -name '*.yaml' -exec cp --parents {} "$tmp/config/core/" \;)
cp "$networking_dir"/config/*.yaml "$tmp/config/networking/"
cp "$caching_dir"/config/*.yaml "$tmp/config/caching/"

cd "$here/traefik"
start=$SECONDS
go mod download github.com/traefik/traefik/v3
go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/traefik" github.com/traefik/traefik/v3/cmd/traefik
echo "test-infra: built traefik in $((SECONDS - start))s"

chmod -R u+w "$tmp/config"
touch "$tmp/.complete"

if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: serving built in $((SECONDS - total))s"
echo "test-infra: serving $final"
