#!/usr/bin/env bash
# Builds the helm CLI from its published Go module (helm.sh/helm/v4, pinned in
# ./helm/go.mod), for the chart tests (`helm lint`, `helm template`, and
# `helm install` against the harness's control plane):
#   helm   the binary, in $CACHE/helm-<key>/
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: helm <path to the binary>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
helm_version=v4.3.2
# `helm version` reports the pinned version rather than the source default ("v4.3").
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=${helm_version}"
ldflags+=" -X helm.sh/helm/v4/internal/version.gitTreeState=clean"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build helm)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in helm/go.mod helm/go.sum helm/tools.go build-helm.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/helm-$key"

if [[ -x "$final/helm" && -f "$final/.complete" ]]; then
  echo "test-infra: helm cache hit $final"
  echo "test-infra: helm $final/helm"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.helm-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/helm"
start=$SECONDS
echo "test-infra: building helm ${helm_version} into $final ($go_version)"
go mod download helm.sh/helm/v4
go build -trimpath -ldflags "$ldflags" -o "$tmp/helm" helm.sh/helm/v4/cmd/helm
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: helm built in $((SECONDS - start))s"
echo "test-infra: helm $final/helm"
