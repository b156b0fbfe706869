#!/usr/bin/env bash
# Builds promtool from its published Go module (github.com/prometheus/prometheus, pinned in
# ./promtool/go.mod), for `promtool check rules` and `promtool test rules` of
# chart/files/prometheus-rules.yaml in `npm test`:
#   promtool   the binary, in $CACHE/promtool-<key>/
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: promtool <path to the binary>`.
# Only cmd/promtool is built (not the server): about the size of a kubectl.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
promtool_version=v0.316.0
ldflags="-s -w -X github.com/prometheus/common/version.Version=${promtool_version}"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build promtool)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in promtool/go.mod promtool/go.sum promtool/tools.go build-promtool.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/promtool-$key"

if [[ -x "$final/promtool" && -f "$final/.complete" ]]; then
  echo "test-infra: promtool cache hit $final"
  echo "test-infra: promtool $final/promtool"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.promtool-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/promtool"
start=$SECONDS
echo "test-infra: building promtool ${promtool_version} into $final ($go_version)"
go mod download github.com/prometheus/prometheus
go build -trimpath -ldflags "$ldflags" -o "$tmp/promtool" github.com/prometheus/prometheus/cmd/promtool
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: promtool built in $((SECONDS - start))s"
echo "test-infra: promtool $final/promtool"
