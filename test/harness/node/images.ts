// The images the tests' pods run, made here from binaries already built, under
// the names a pod spec uses (the kubelet normalises "nats:2.15.2" to
// "docker.io/library/nats:2.15.2").
import type { ScratchImage } from "./oci-image.ts";

/** The nats image's layout: the server at /nats-server, on PATH so `nats-server --signal` works. */
export function natsServerImages(binaries: Record<string, string>): ScratchImage[] {
  return Object.entries(binaries).map(([version, source]) => ({
    name: `docker.io/library/nats:${version}`,
    files: [{ path: "nats-server", source }],
    entrypoint: ["/nats-server"],
    cmd: ["--config", "nats-server.conf"],
    env: ["PATH=/usr/local/bin:/usr/bin:/bin:/"],
  }));
}

/** The exporter version the Go module proxy serves here (it refuses v0.20.2, which the operator pins). */
export const EXPORTER_BUILT_VERSION = "0.20.1";
/**
 * The tag render-cluster pins (functions/cluster/plan/statefulset.ts; a unit test keeps the two
 * equal). The node holds the built exporter under it as well, so a NatsCluster with the default
 * exporter runs: the flags the operator passes are the same in both versions.
 */
export const EXPORTER_PINNED_TAG = "0.20.2";

export function exporterImages(binary: string): ScratchImage[] {
  return [EXPORTER_BUILT_VERSION, EXPORTER_PINNED_TAG].map((tag) => ({
    name: `docker.io/natsio/prometheus-nats-exporter:${tag}`,
    files: [{ path: "prometheus-nats-exporter", source: binary }],
    entrypoint: ["/prometheus-nats-exporter"],
  }));
}
