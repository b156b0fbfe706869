#!/usr/bin/env bash
# Builds kube-state-metrics from its published Go module (k8s.io/kube-state-metrics/v2, pinned in
# ./kube-state-metrics/go.mod), for the test of the chart's CustomResourceState configuration
# (chart/files/kube-state-metrics.yaml, test/integration/chart/kube-state-metrics.test.ts):
#   kube-state-metrics   the binary, in $CACHE/kube-state-metrics-<key>/
# Cached like build.sh: key hashes the module files, this script, `go version`
# and the ldflags; a cache hit does nothing.
# The last line printed is always `test-infra: kube-state-metrics <path to the binary>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
ksm_version=v2.20.0
# The release's own stamps (its Makefile): version and the client-go it was built with.
client_go_version=v0.36.3
ldflags="-s -w -X github.com/prometheus/common/version.Version=${ksm_version} -X k8s.io/kube-state-metrics/v2/pkg/app.ClientGoVersion=${client_go_version}"

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build kube-state-metrics)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in kube-state-metrics/go.mod kube-state-metrics/go.sum kube-state-metrics/tools.go build-kube-state-metrics.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n== ldflags\n%s\n' "$go_version" "$ldflags"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/kube-state-metrics-$key"

if [[ -x "$final/kube-state-metrics" && -f "$final/.complete" ]]; then
  echo "test-infra: kube-state-metrics cache hit $final"
  echo "test-infra: kube-state-metrics $final/kube-state-metrics"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.kube-state-metrics-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/kube-state-metrics"
start=$SECONDS
echo "test-infra: building kube-state-metrics ${ksm_version} into $final ($go_version)"
go mod download k8s.io/kube-state-metrics/v2
go build -trimpath -ldflags "$ldflags" -o "$tmp/kube-state-metrics" k8s.io/kube-state-metrics/v2
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: kube-state-metrics built in $((SECONDS - start))s"
echo "test-infra: kube-state-metrics $final/kube-state-metrics"
