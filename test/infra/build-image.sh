#!/usr/bin/env bash
# `npm run build:image`: builds the operator image from the project's own
# Dockerfile with buildah, with no registry: its two bases are the ones
# build-image-bases.sh makes here, passed through the Dockerfile's build args
# BUILD_IMAGE and RUNTIME_IMAGE (the Dockerfile itself is what is built; the
# bases it pins are not pulled). The build stage's `npm ci` reaches the npm
# registry.
#   image.tar    OCI archive of the image, named as the chart deploys it by
#                default: <image.repository of chart/values.yaml>:<appVersion of
#                chart/Chart.yaml> (ghcr.io/nats-operator/nats-operator:0.1.0),
#                ready for `ctr -n k8s.io images import`, `skopeo copy` or
#                `podman load`
#   name         that reference, one line
#
# Cached like build-node.sh: $CACHE/operator-image-<key>/, key hashing the
# Dockerfile, .dockerignore, package.json, package-lock.json, every file under
# bin/, functions/, shared/ and knative/, scripts/build.ts, the image name, this
# script, the bases' key and `buildah --version`; a cache hit does nothing.
# buildah keeps its storage in $CACHE/image-storage/ (its own, not the
# machine's), with --layers: a rebuild after a source change reuses the
# `npm ci` layer while package*.json stay the same. The storage is emptied
# when it grows past 8 GiB; deleting it is always safe.
# The last line printed is always `test-infra: operator-image <image.tar>`.
#
# The build stage's npm trusts what the host's npm trusts: when the host's npm
# has a `cafile` (or NODE_EXTRA_CA_CERTS is set), that file is mounted into the
# RUN steps with an npmrc naming it (`buildah bud -v`, in no layer), for hosts
# whose egress goes through a TLS-intercepting proxy.
#
#   NATS_OPERATOR_INFRA_CACHE        cache root (default
#                                    ${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra)
#   NATS_OPERATOR_BUILDAH_DRIVER     buildah's storage driver (default overlay; vfs where
#                                    overlay mounts fail)
#   NATS_OPERATOR_BUILDAH_ISOLATION  buildah's --isolation for RUN (default oci, i.e. runc;
#                                    chroot where runc cannot run)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache_root="${NATS_OPERATOR_INFRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nats-operator/test-infra}"
driver="${NATS_OPERATOR_BUILDAH_DRIVER:-overlay}"
isolation="${NATS_OPERATOR_BUILDAH_ISOLATION:-oci}"
storage_limit_mib=8192

if ! command -v buildah >/dev/null 2>&1; then
  echo "test-infra: installing Debian packages: buildah"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends buildah >/dev/null
fi

repository="$(sed -n 's/^  repository: *\([^ #]*\).*$/\1/p' "$repo/chart/values.yaml" | head -1)"
tag="$(sed -n 's/^appVersion: *"\{0,1\}\([^" ]*\)"\{0,1\}.*$/\1/p' "$repo/chart/Chart.yaml")"
if [[ -z "$repository" || -z "$tag" ]]; then
  echo "test-infra: cannot read image.repository from chart/values.yaml or appVersion from chart/Chart.yaml" >&2
  exit 1
fi
name="$repository:$tag"

# The bases first (cached); their key is part of this one.
bases_log="$(mktemp)"
bash "$here/build-image-bases.sh" | tee "$bases_log"
bases="$(sed -n 's/^test-infra: image-bases //p' "$bases_log" | tail -1)"
rm -f "$bases_log"
bases_key="$(cat "$bases/key")"

buildah_version="$(buildah --version)"
key="$(
  {
    printf '== name\n%s\n== bases\n%s\n== buildah\n%s\n' "$name" "$bases_key" "$buildah_version"
    cd "$repo"
    find Dockerfile .dockerignore package.json package-lock.json scripts/build.ts bin functions shared knative \
      test/infra/build-image.sh -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-16
)"
final="$cache_root/operator-image-$key"

if [[ -f "$final/.complete" ]]; then
  echo "test-infra: operator-image cache hit $final ($name)"
  echo "test-infra: operator-image $final/image.tar"
  exit 0
fi

mkdir -p "$cache_root"
tmp="$(mktemp -d "$cache_root/.tmp.operator-image-$key.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
total=$SECONDS
echo "test-infra: building $name from the Dockerfile into $final ($buildah_version, $driver, $isolation)"

storage="$cache_root/image-storage"
if [[ -d "$storage" ]] && (($(du -sm "$storage" | cut -f1) > storage_limit_mib)); then
  echo "test-infra: buildah's storage is past $storage_limit_mib MiB: emptying it"
  buildah --root "$storage/root" --runroot "$storage/run" --storage-driver "$driver" rmi --all --force >/dev/null 2>&1 || true
  rm -rf "$storage"
fi
b() { buildah --root "$storage/root" --runroot "$storage/run" --storage-driver "$driver" "$@"; }

# The bases into buildah's storage, under names that carry their key.
build_base="localhost/nats-operator/build-base:$bases_key"
runtime_base="localhost/nats-operator/runtime-base:$bases_key"
for base in build runtime; do
  ref="localhost/nats-operator/$base-base:$bases_key"
  if ! b inspect --type image "$ref" >/dev/null 2>&1; then
    id="$(b pull --quiet "oci-archive:$bases/$base.tar")"
    b tag "$id" "$ref"
  fi
done

ca_args=()
cafile="$(npm config get cafile 2>/dev/null || true)"
if [[ -z "$cafile" || "$cafile" == null || "$cafile" == undefined ]]; then cafile="${NODE_EXTRA_CA_CERTS:-}"; fi
if [[ -n "$cafile" && -f "$cafile" ]]; then
  printf 'cafile=/run/host-npm-ca.crt\n' >"$tmp/npmrc"
  ca_args=(-v "$cafile:/run/host-npm-ca.crt:ro" -v "$tmp/npmrc:/usr/local/etc/npmrc:ro")
  echo "test-infra: the build stage's npm trusts the host npm's cafile $cafile"
fi

step_start=$SECONDS
b bud --pull-never --layers --isolation "$isolation" "${ca_args[@]}" \
  --build-arg "BUILD_IMAGE=$build_base" --build-arg "RUNTIME_IMAGE=$runtime_base" \
  -t "$name" -f "$repo/Dockerfile" "$repo" 2>&1 | sed -u 's/^/  /'
echo "test-infra: buildah bud done in $((SECONDS - step_start))s"

b push --quiet --format oci "$name" "oci-archive:$tmp/image.tar:$name"
printf '%s\n' "$name" >"$tmp/name"
touch "$tmp/.complete"
echo "test-infra: $name: $(b images --format '{{.Size}}' "$name") in buildah's storage, archive $(du -h "$tmp/image.tar" | cut -f1)"

# Publish atomically; if a concurrent build won the race, keep its result.
if ! mv -T "$tmp" "$final" 2>/dev/null; then
  if [[ ! -f "$final/.complete" ]]; then
    rm -rf "$final"
    mv -T "$tmp" "$final"
  fi
fi
echo "test-infra: operator image built in $((SECONDS - total))s"
echo "test-infra: operator-image $final/image.tar"
