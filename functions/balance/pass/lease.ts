// The move lease of a NATS cluster (B9): one balancer at a time moves on it. A Kubernetes Lease
// per NATS cluster, in the operator's namespace, written guarded by the resourceVersion read (or
// created only if absent), so of two balancers, or two deliveries, exactly one takes it. The
// holder takes it before a move, renews it on each of its passes while the move is pending, and
// lets it go once a pass finds the move done. It lapses a minute after the holder's last pass, so
// a balancer that is deleted or stops mid-move blocks the others for a minute at most.
import { createHash } from "node:crypto";
import { guarded, type Kube, type KubeObject } from "../../../shared/kube/index.ts";

/** How long a lease outlives its holder's last pass. */
export const LEASE_TTL_MS = 60_000;

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" } as const;

type LeaseObject = KubeObject & {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string };
};

/** The lease as a pass reads it: who holds it, until when, and the version a write is guarded by. */
export interface MoveLease {
  namespace: string;
  name: string;
  holder?: string;
  renewTime?: string;
  acquireTime?: string;
  resourceVersion?: string;
}

/** What a pass does with the lease, after deciding. */
export type LeaseOp = { kind: "take" | "renew" | "release"; holder: string; at: Date };

/** `kubernetes: Lease` names are DNS subdomains: the NATS cluster name as far as it fits, and a hash. */
export function leaseName(cluster: string): string {
  const readable = cluster
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  const hash = createHash("sha256").update(cluster).digest("hex").slice(0, 8);
  return `nats-balance-${readable ? `${readable}-` : ""}${hash}`;
}

/** Who holds the lease at `now`; undefined when nobody does, or the holder's last renewal lapsed. */
export function currentHolder(lease: MoveLease | undefined, now: Date): string | undefined {
  if (!lease?.holder || !lease.renewTime) return undefined;
  return now.getTime() - Date.parse(lease.renewTime) < LEASE_TTL_MS ? lease.holder : undefined;
}

export async function readLease(kube: Kube, namespace: string, cluster: string): Promise<MoveLease> {
  const name = leaseName(cluster);
  const found = await kube.get<LeaseObject>({ ...LEASE, namespace, name });
  return {
    namespace,
    name,
    ...(found?.spec?.holderIdentity ? { holder: found.spec.holderIdentity } : {}),
    ...(found?.spec?.renewTime ? { renewTime: found.spec.renewTime } : {}),
    ...(found?.spec?.acquireTime ? { acquireTime: found.spec.acquireTime } : {}),
    ...(found?.metadata.resourceVersion ? { resourceVersion: found.metadata.resourceVersion } : {}),
  };
}

/** Lease times are MicroTime: RFC 3339 with microseconds. */
const microTime = (at: Date) => at.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/**
 * Writes `op` over the lease as it was read; false when someone wrote it since (their write
 * stands). A release keeps the object and clears the holder, so the next take is a guarded update.
 */
export async function writeLease(kube: Kube, lease: MoveLease, op: LeaseOp): Promise<boolean> {
  const spec =
    op.kind === "release"
      ? { leaseDurationSeconds: LEASE_TTL_MS / 1000 }
      : {
          holderIdentity: op.holder,
          leaseDurationSeconds: LEASE_TTL_MS / 1000,
          acquireTime: op.kind === "renew" && lease.acquireTime ? lease.acquireTime : microTime(op.at),
          renewTime: microTime(op.at),
        };
  const metadata = { name: lease.name, namespace: lease.namespace };
  const written = await guarded(() =>
    lease.resourceVersion
      ? kube.replace<LeaseObject>({ ...LEASE, metadata: { ...metadata, resourceVersion: lease.resourceVersion }, spec })
      : kube.create<LeaseObject>({ ...LEASE, metadata, spec }),
  );
  return written.kind === "written";
}
