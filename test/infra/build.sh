#!/usr/bin/env bash
# Builds the test control plane from published Go modules:
#   bin/k8s          multi-call binary (kube-apiserver, kube-controller-manager,
#                    etcd, kubectl), from ./k8s
#   bin/nats-server  nats-server, from ./nats
# plus symlinks bin/{kube-apiserver,kube-controller-manager,etcd,kubectl} -> k8s.
#
# Idempotent: output goes to $CACHE/<key>/bin, where key hashes the module
# files, the mains, `go version` and the ldflags. A cache hit does nothing.
# The last line printed is always `test-infra: bin <path>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"

# shellcheck source=k8s-version.sh
source "$here/k8s-version.sh"
nats_ldflags="-s -w"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build the test control plane)" >&2
  exit 1
fi
go_version="$(go version)"

key="$(
  {
    for f in k8s/go.mod k8s/go.sum k8s/main.go nats/go.mod nats/go.sum nats/tools.go; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n%s\n' "$go_version" "$k8s_ldflags" "$nats_ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/$key"
applets=(kube-apiserver kube-controller-manager etcd kubectl)

if [[ -x "$final/bin/k8s" && -x "$final/bin/nats-server" ]]; then
  echo "test-infra: cache hit $final/bin"
  echo "test-infra: bin $final/bin"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"

step() { # step <label> <dir> <cmd...>: run in dir, print elapsed time
  local label="$1" dir="$2" start=$SECONDS
  shift 2
  echo "test-infra: $label ..."
  (cd "$dir" && "$@")
  echo "test-infra: $label done in $((SECONDS - start))s"
}

echo "test-infra: building into $final ($go_version)"
total=$SECONDS
step "download k8s modules" "$here/k8s" go mod download
step "download nats modules" "$here/nats" go mod download
step "build nats-server v2.15.2" "$here/nats" \
  go build -trimpath -ldflags "$nats_ldflags" -o "$tmp/bin/nats-server" github.com/nats-io/nats-server/v2
step "build k8s ${k8s_version} (kube-apiserver, kube-controller-manager, etcd, kubectl)" "$here/k8s" \
  go build -trimpath -ldflags "$k8s_ldflags" -o "$tmp/bin/k8s" .
for a in "${applets[@]}"; do ln -s k8s "$tmp/bin/$a"; done
echo "test-infra: sizes: $(cd "$tmp/bin" && du -h k8s nats-server | tr '\t\n' ' ')"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -x "$final/bin/k8s" || ! -x "$final/bin/nats-server" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: built in $((SECONDS - total))s"
echo "test-infra: bin $final/bin"
