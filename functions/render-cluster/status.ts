// The part of the NatsCluster status render-cluster owns: what the spec renders to.
// Conditions, servers, the config revision being applied and the rollout are step-rollout's.
import type { ObjectSnapshot } from "../../shared/runtime/index.ts";
import { type Cluster, type ClusterPlan, type CertificateTimes } from "../cluster/index.ts";

export type RenderedStatus = ClusterPlan["status"] & Pick<NonNullable<Cluster["status"]>, "routeCertificate">;

/** The fields render-cluster writes: as the plan renders them, and the self-signed route certificate's times. */
export function renderedStatus(planned: ClusterPlan["status"], certificate?: CertificateTimes): RenderedStatus {
  return {
    replicas: planned.replicas,
    endpoints: planned.endpoints,
    ...(planned.jetstream ? { jetstream: planned.jetstream } : {}),
    ...(certificate
      ? {
          routeCertificate: {
            notAfter: certificate.notAfter.toISOString(),
            renewAt: certificate.renewAt.toISOString(),
          },
        }
      : {}),
  };
}

/** Whether the self-signed route certificate the status names has fallen due: the resync tick delivers the cluster. */
export function routeCertificateDue(snapshot: ObjectSnapshot, now: Date): boolean {
  const status = snapshot.status as Cluster["status"];
  const renewAt = status?.routeCertificate?.renewAt;
  return renewAt !== undefined && Date.parse(renewAt) <= now.getTime();
}

/** The fields of `status` render-cluster owns, as they stand now: what a write is compared with. */
export function renderedFields(status: Cluster["status"]): Record<string, unknown> {
  return {
    replicas: status?.replicas,
    endpoints: status?.endpoints,
    ...(status?.jetstream?.limits ? { jetstream: { limits: status.jetstream.limits } } : {}),
    ...(status?.routeCertificate ? { routeCertificate: status.routeCertificate } : {}),
  };
}
