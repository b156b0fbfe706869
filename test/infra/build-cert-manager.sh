#!/usr/bin/env bash
# Builds the cert-manager controller the TLS-from-cert-manager tests run, from
# the published main module (github.com/cert-manager/cert-manager, pinned in
# ./cert-manager/go.mod; its cmd/controller module is not on the proxy, so
# ./cert-manager/main.go runs the controllers by their registered names):
#   cert-manager   the binary, in $CACHE/cert-manager-<key>/
#   crds/          the module's deploy/crds/*.yaml, unchanged
# Cached like build.sh: key hashes the module files, the main, this script,
# `go version` and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: cert-manager <dir>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
module=github.com/cert-manager/cert-manager
version="$(sed -n "s#^\(require \|\t\)${module} \(v[0-9.]*\)\$#\2#p" "$here/cert-manager/go.mod")"
ldflags="-s -w"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build cert-manager)" >&2
  exit 1
fi
if [[ -z "$version" ]]; then
  echo "test-infra: no cert-manager version in $here/cert-manager/go.mod" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in cert-manager/go.mod cert-manager/go.sum cert-manager/main.go build-cert-manager.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/cert-manager-$key"

if [[ -x "$final/cert-manager" && -f "$final/.complete" ]]; then
  echo "test-infra: cert-manager cache hit $final"
  echo "test-infra: cert-manager $final"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.cert-manager-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/cert-manager"
start=$SECONDS
echo "test-infra: building cert-manager ${version} into $final ($go_version)"
go mod download "$module"
go build -trimpath -ldflags "$ldflags" -o "$tmp/cert-manager" .
src="$(go list -m -f '{{.Dir}}' "$module")"
mkdir "$tmp/crds"
cp "$src"/deploy/crds/*.yaml "$tmp/crds/"
chmod 644 "$tmp"/crds/*.yaml
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: cert-manager ${version} built in $((SECONDS - start))s"
echo "test-infra: cert-manager $final"
