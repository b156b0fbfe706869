#!/usr/bin/env bash
# Builds Knative Eventing from its published Go module, for the tests and the
# `cluster:up -- --knative` control plane that run on real Knative:
#   bin/<name>   one binary per command the Knative manifests name as
#                ko://knative.dev/eventing/cmd/<path> (name = path with / -> -)
#   config/      the module's own manifests (core, in-memory channel,
#                multi-tenant channel-based broker), copied unchanged
# Built only when asked for; cached like build.sh under $CACHE/knative-<key>,
# where key hashes the module files, `go version` and the ldflags.
# The last line printed is always `test-infra: knative <dir>`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
ldflags="-s -w"
commands=(
  controller
  webhook
  apiserver_receive_adapter
  mtping
  mtchannel_broker
  broker/ingress
  broker/filter
  in_memory/channel_controller
  in_memory/channel_dispatcher
  event_display
)

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build Knative Eventing)" >&2
  exit 1
fi
go_version="$(go version)"
key="$(
  {
    for f in knative/go.mod knative/go.sum knative/tools.go build-knative.sh; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n' "$go_version"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/knative-$key"

if [[ -f "$final/.complete" ]]; then
  echo "test-infra: knative cache hit $final"
  echo "test-infra: knative $final"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.knative-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/config"

export CGO_ENABLED=0
export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here/knative"
total=$SECONDS
echo "test-infra: building Knative Eventing into $final ($go_version)"
go mod download knative.dev/eventing
for c in "${commands[@]}"; do
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/${c//\//-}" "knative.dev/eventing/cmd/$c"
  echo "test-infra: built $c in $((SECONDS - start))s"
done
module_dir="$(go list -m -f '{{.Dir}}' knative.dev/eventing)"
for d in core channels/in-memory-channel brokers/mt-channel-broker; do
  mkdir -p "$tmp/config/$d"
  (cd "$module_dir/config/$d" && find . -name '*.yaml' -exec cp --parents {} "$tmp/config/$d/" \;)
done
chmod -R u+w "$tmp/config"
touch "$tmp/.complete"

if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: knative built in $((SECONDS - total))s"
echo "test-infra: knative $final"
