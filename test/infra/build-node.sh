#!/usr/bin/env bash
# Builds the test cluster's real node from published Go modules, and makes
# sure the Debian packages it runs with are installed:
#   bin/node            multi-call binary (kubelet, kube-proxy, kube-scheduler), from ./node
#   bin/pause           the pod sandbox's process, from ./node/pause
#   bin/containerd, bin/containerd-shim-runc-v2, bin/ctr   from ./containerd
#   bin/coredns         CoreDNS with the cluster's plugins, from ./coredns
#   bin/prometheus-nats-exporter   the exporter sidecar's program, from ./exporter
#   bin/kube-router     the NetworkPolicy enforcer (its firewall controller only), from ./kube-router
# plus symlinks bin/{kubelet,kube-proxy,kube-scheduler} -> node.
# Debian: runc, the CNI plugins (bridge, host-local, loopback, portmap),
# iptables, conntrack, ipset (kube-router's address sets), buildah and umoci
# (images are built here, with no registry).
#
# Cached like build.sh: $CACHE/node-<key>/bin, key hashing the module files,
# the mains, this script and `go version`; a cache hit does nothing.
# The last line printed is always `test-infra: node <bin dir>`.
#
#   NATS_OPERATOR_INFRA_CACHE  cache root (default
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
# shellcheck source=k8s-version.sh
source "$here/k8s-version.sh"
containerd_version="$(sed -n 's#^require github.com/containerd/containerd/v2 \(v[0-9.]*\)$#\1#p' "$here/containerd/go.mod")"
containerd_ldflags="-s -w -X github.com/containerd/containerd/v2/version.Version=${containerd_version}"
coredns_ldflags="-s -w"
exporter_version="$(sed -n 's#^require github.com/nats-io/prometheus-nats-exporter \(v[0-9.]*\)$#\1#p' "$here/exporter/go.mod")"
kube_router_version="$(sed -n 's#^require github.com/cloudnativelabs/kube-router/v2 \(v[0-9.]*\)$#\1#p' "$here/kube-router/go.mod")"
kube_router_ldflags="-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=${kube_router_version}"
debian_packages=(runc containernetworking-plugins iptables conntrack ipset buildah umoci)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "test-infra: installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  echo "test-infra: 'go' not found on PATH (Go >= 1.26 is needed to build the node)" >&2
  exit 1
fi
go_version="$(go version)"
sources=(node/go.mod node/go.sum node/main.go node/pause/main.go containerd/go.mod containerd/go.sum containerd/tools.go
  coredns/go.mod coredns/go.sum coredns/main.go exporter/go.mod exporter/go.sum exporter/tools.go
  kube-router/go.mod kube-router/go.sum kube-router/tools.go build-node.sh k8s-version.sh)
key="$(
  {
    for f in "${sources[@]}"; do
      printf '== %s\n' "$f"
      cat "$here/$f"
    done
    printf '== go\n%s\n' "$go_version"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/node-$key"
applets=(kubelet kube-proxy kube-scheduler)

if [[ -f "$final/.complete" ]]; then
  echo "test-infra: node cache hit $final/bin"
  echo "test-infra: node $final/bin"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.node-$key.XXXXXX")"
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

echo "test-infra: building the node into $final ($go_version)"
total=$SECONDS
step "build kubelet, kube-proxy, kube-scheduler ${k8s_version}" "$here/node" \
  go build -trimpath -ldflags "$k8s_ldflags" -o "$tmp/bin/node" .
for a in "${applets[@]}"; do ln -s node "$tmp/bin/$a"; done
step "build pause" "$here/node" go build -trimpath -ldflags "-s -w" -o "$tmp/bin/pause" ./pause
for main in containerd containerd-shim-runc-v2 ctr; do
  step "build $main ${containerd_version}" "$here/containerd" \
    go build -trimpath -tags "no_btrfs no_devmapper no_zfs" -ldflags "$containerd_ldflags" \
    -o "$tmp/bin/$main" "github.com/containerd/containerd/v2/cmd/$main"
done
step "build coredns" "$here/coredns" go build -trimpath -ldflags "$coredns_ldflags" -o "$tmp/bin/coredns" .
step "build prometheus-nats-exporter ${exporter_version}" "$here/exporter" \
  go build -trimpath -ldflags "-s -w" -o "$tmp/bin/prometheus-nats-exporter" github.com/nats-io/prometheus-nats-exporter
step "build kube-router ${kube_router_version}" "$here/kube-router" \
  go build -trimpath -ldflags "$kube_router_ldflags" -o "$tmp/bin/kube-router" github.com/cloudnativelabs/kube-router/v2/cmd/kube-router
touch "$tmp/.complete"
echo "test-infra: sizes: $(cd "$tmp/bin" && du -h node pause containerd containerd-shim-runc-v2 ctr coredns prometheus-nats-exporter kube-router | tr '\t\n' ' ')"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: node built in $((SECONDS - total))s"
echo "test-infra: node $final/bin"
