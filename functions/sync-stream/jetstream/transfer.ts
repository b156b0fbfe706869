// A stream moving to another NATS cluster (placement.cluster changed), as
// stream info reports it in cluster.desired while nats-server moves it.
import type { ApiPaged, ClusterInfo, ConsumerInfo } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { jsRequest } from "../../../shared/nats/index.ts";

/** One member of a Raft group, as the status shows it. */
export interface ReplicaStatus {
  name: string;
  current?: boolean;
  lag?: number;
}

export interface TransferStatus {
  from?: string;
  to?: string;
  started?: string;
  replicas?: ReplicaStatus[];
  consumers?: { moved: number; total: number };
}

/**
 * A Raft group as stream or consumer info reports it, with what nats-server adds while it moves the
 * group to another NATS cluster (`desired`), which @nats-io/jetstream does not type.
 */
export type MovingCluster = ClusterInfo & {
  desired?: {
    created?: string;
    name?: string;
    replicas?: { name: string }[];
    origin?: { placement?: { cluster?: string } };
  } | null;
};

/** The move in progress, or undefined when there is none (no desired state, or a change within one cluster). */
export function transferOf(info: Record<string, unknown>): TransferStatus | undefined {
  const cluster = info.cluster as MovingCluster | undefined;
  const desired = cluster?.desired;
  if (!cluster || !desired) return undefined;
  const from = desired.origin?.placement?.cluster ?? cluster.name;
  const to = desired.name;
  if (!to || from === to) return undefined;
  const replicas = (desired.replicas ?? []).map((r): ReplicaStatus => {
    if (r.name === cluster.leader) return { name: r.name, current: true };
    const seen = cluster.replicas?.find((x) => x.name === r.name);
    return { name: r.name, current: seen?.current === true, ...(seen?.lag ? { lag: seen.lag } : {}) };
  });
  return {
    ...(from ? { from } : {}),
    to,
    ...(desired.created ? { started: desired.created.replace(/\.\d+Z$/, "Z") } : {}),
    replicas,
  };
}

/** A consumer has moved when nothing is in flight for it and it is led from the target cluster. */
export function consumersMoved(
  consumers: readonly { cluster?: MovingCluster }[],
  to: string,
): { moved: number; total: number } {
  const moved = consumers.filter((c) => !c.cluster?.desired && c.cluster?.name === to).length;
  return { moved, total: consumers.length };
}

/** Consumer listing timeout (pages can be large). */
const listTimeoutMs = 10_000;

/** A consumer as a consumer listing gives it, its group with any move in flight. */
export type ListedConsumer = Omit<ConsumerInfo, "cluster"> & { cluster?: MovingCluster };

/** Every consumer of a stream, page by page. */
export async function listConsumers(nc: NatsConnection, stream: string): Promise<ListedConsumer[]> {
  const all: ListedConsumer[] = [];
  let offset = 0;
  for (;;) {
    const page = await jsRequest<Partial<ApiPaged> & { consumers?: ListedConsumer[]; missing?: string[] }>(
      nc,
      `CONSUMER.LIST.${stream}`,
      { offset },
      listTimeoutMs,
    );
    const covered = (page.consumers?.length ?? 0) + (page.missing?.length ?? 0);
    all.push(...(page.consumers ?? []));
    offset += covered;
    if (covered === 0 || offset >= (page.total ?? 0)) return all;
  }
}

export function movingMessage(transfer: TransferStatus): string {
  const replicas = transfer.replicas ?? [];
  return `moving to NATS cluster ${transfer.to ?? "?"}; ${replicas.filter((r) => r.current).length} of ${replicas.length} new replicas current`;
}
