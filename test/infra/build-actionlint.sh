#!/usr/bin/env bash
# Builds actionlint from its published Go module (github.com/rhysd/actionlint, pinned in
# ./actionlint/go.mod), for the check of .github/workflows/ in `npm test`:
#   actionlint   the binary, in $CACHE/actionlint-<key>/
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: actionlint <path to the binary>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
actionlint_version=v1.7.12
ldflags="-s -w -X github.com/rhysd/actionlint.version=${actionlint_version}"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build actionlint)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in actionlint/go.mod actionlint/go.sum actionlint/tools.go build-actionlint.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/actionlint-$key"

if [[ -x "$final/actionlint" && -f "$final/.complete" ]]; then
  echo "test-infra: actionlint cache hit $final"
  echo "test-infra: actionlint $final/actionlint"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.actionlint-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/actionlint"
start=$SECONDS
echo "test-infra: building actionlint ${actionlint_version} into $final ($go_version)"
go mod download github.com/rhysd/actionlint
go build -trimpath -ldflags "$ldflags" -o "$tmp/actionlint" github.com/rhysd/actionlint/cmd/actionlint
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: actionlint built in $((SECONDS - start))s"
echo "test-infra: actionlint $final/actionlint"
