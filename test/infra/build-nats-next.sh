#!/usr/bin/env bash
# Builds the second nats-server the tests run (the version pinned in
# ./nats-next/go.mod), so a NatsCluster can move between two real versions:
#   nats-server-<version>   in $CACHE/nats-next-<key>/
# The local kubelet runs it for a pod whose image tag names that version.
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: nats-next <path to the binary>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
version="$(sed -n 's#^require github.com/nats-io/nats-server/v2 v\([0-9.]*\)$#\1#p' "$here/nats-next/go.mod")"
ldflags="-s -w"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build nats-server)" >&2
  exit 1
fi
if [[ -z "$version" ]]; then
  echo "test-infra: no nats-server version in $here/nats-next/go.mod" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in nats-next/go.mod nats-next/go.sum nats-next/tools.go build-nats-next.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/nats-next-$key"
binary="nats-server-$version"

if [[ -x "$final/$binary" && -f "$final/.complete" ]]; then
  echo "test-infra: nats-next cache hit $final"
  echo "test-infra: nats-next $final/$binary"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.nats-next-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/nats-next"
start=$SECONDS
echo "test-infra: building nats-server v${version} into $final ($go_version)"
go mod download github.com/nats-io/nats-server/v2
go build -trimpath -ldflags "$ldflags" -o "$tmp/$binary" github.com/nats-io/nats-server/v2
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: nats-server v${version} built in $((SECONDS - start))s"
echo "test-infra: nats-next $final/$binary"
