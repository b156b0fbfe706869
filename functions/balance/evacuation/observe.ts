// Everything one evacuation pass decides on, read and nothing else: the evacuation, what its
// connection shows of the source NATS cluster, and the JetStream resources that may own the
// streams there (their UIDs and declared placement).
import { KINDS, type Reason } from "../../../shared/api/index.ts";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { type Connected, type ConnectionPool, connectWith, resolveConnection } from "../../../shared/nats/index.ts";
import { EVACUATION, type NatsClusterEvacuation, type PinnedResource } from "./resource.ts";
import { readSource } from "./read-source.ts";
import type { SourceView } from "./source.ts";

/** A NatsStream, NatsKeyValue or NatsObjectStore, as far as an evacuation cares. */
export interface OwningResource {
  kind: PinnedResource["kind"];
  namespace: string;
  name: string;
  uid: string;
  /** `spec.placement.cluster`, if the resource pins one. */
  placementCluster?: string;
}

export type SourceState = { kind: "read"; view: SourceView } | { kind: "unavailable"; reason: Reason; message: string };

export interface EvacuationObserved {
  evacuation: NatsClusterEvacuation;
  source: SourceState;
  resources: OwningResource[];
}

const OWNING_KINDS = [KINDS.NatsStream, KINDS.NatsKeyValue, KINDS.NatsObjectStore] as const;

type Placed = KubeObject & { spec?: { placement?: { cluster?: string } } };

/** The evacuation's connection, or why there is none (the connection reasons of the catalogue). */
export async function evacuationConnection(
  kube: Kube,
  pool: ConnectionPool,
  evacuation: NatsClusterEvacuation,
): Promise<Connected> {
  const referrer = { group: EVACUATION.group, kind: EVACUATION.kind, namespace: evacuation.metadata.namespace };
  const resolved = await resolveConnection(kube, referrer, evacuation.spec.connectionRef);
  if (!resolved.ok) return resolved;
  return connectWith(kube, pool, resolved.connection);
}

async function readResources(kube: Kube): Promise<OwningResource[]> {
  const lists = await Promise.all(
    OWNING_KINDS.map(async (info) =>
      (await kube.list<Placed>({ apiVersion: info.apiVersion, kind: info.kind })).flatMap((o): OwningResource[] => {
        const cluster = o.spec?.placement?.cluster;
        return o.metadata.uid
          ? [
              {
                kind: info.kind,
                namespace: o.metadata.namespace ?? "",
                name: o.metadata.name,
                uid: o.metadata.uid,
                ...(cluster ? { placementCluster: cluster } : {}),
              },
            ]
          : [];
      }),
    ),
  );
  return lists.flat();
}

export async function observeEvacuation(
  kube: Kube,
  pool: ConnectionPool,
  evacuation: NatsClusterEvacuation,
): Promise<EvacuationObserved> {
  const [resources, connected] = await Promise.all([readResources(kube), evacuationConnection(kube, pool, evacuation)]);
  if (!connected.ok)
    return {
      evacuation,
      resources,
      source: { kind: "unavailable", reason: connected.reason, message: connected.message },
    };
  const reading = await readSource(connected.nc, evacuation.spec.from.cluster, evacuation.spec.to.serverTags);
  if (!reading.ok)
    return { evacuation, resources, source: { kind: "unavailable", reason: reading.reason, message: reading.message } };
  return { evacuation, resources, source: { kind: "read", view: reading.view } };
}
