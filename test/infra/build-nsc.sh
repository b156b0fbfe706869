#!/usr/bin/env bash
# Builds the nsc CLI from its published Go module (github.com/nats-io/nsc/v2,
# pinned in ./nsc/go.mod), for the nsc adoption test (story 14: an operator,
# accounts and users made with nsc, then taken over by sign-account):
#   nsc    the binary, in $CACHE/nsc-<key>/
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: nsc <path to the binary>`.
#
# `go install github.com/nats-io/nsc/v2@<version>` does not work through the
# module proxy here: it reads the module's version list for deprecations, and
# the proxy answers 403 for that list; a module requiring an exact version
# (./nsc/go.mod) needs only that version's files.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
nsc_version=v2.12.0
ldflags="-s -w -X main.version=${nsc_version}"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build nsc)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in nsc/go.mod nsc/go.sum nsc/tools.go build-nsc.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/nsc-$key"

if [[ -x "$final/nsc" && -f "$final/.complete" ]]; then
  echo "test-infra: nsc cache hit $final"
  echo "test-infra: nsc $final/nsc"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.nsc-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/nsc"
start=$SECONDS
echo "test-infra: building nsc ${nsc_version} into $final ($go_version)"
go mod download github.com/nats-io/nsc/v2
go build -trimpath -ldflags "$ldflags" -o "$tmp/nsc" github.com/nats-io/nsc/v2
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: nsc built in $((SECONDS - start))s"
echo "test-infra: nsc $final/nsc"
