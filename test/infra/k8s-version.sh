# Sourced by build.sh and build-node.sh: the Kubernetes version both build from and the
# ldflags that stamp it, so `/version` and `kubectl get nodes` report v1.35.4.
# buildDate is fixed (the publication time of k8s.io/kubernetes@v1.35.4 on the module proxy)
# so the build and the cache key are reproducible. The proxy does not carry the git commit,
# so gitCommit stays empty rather than invented.
k8s_version=v1.35.4
k8s_build_date=2026-04-15T18:01:22Z
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X ${pkg}.gitVersion=${k8s_version}"
  k8s_ldflags+=" -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=35"
  k8s_ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.gitCommit="
  k8s_ldflags+=" -X ${pkg}.buildDate=${k8s_build_date}"
done
