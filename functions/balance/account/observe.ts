// Everything one account-balancer pass decides on, read and nothing else: the balancer, the
// resources its pools select from, the NatsSystemBalancers (whose pending moves it yields to), the
// NatsClusters (rollout, B12), the move lease, and its account as its own connection shows it.
import { KINDS, type Reason } from "../../../shared/api/index.ts";
import type { Kube, KubeObject } from "../../../shared/kube/index.ts";
import { type ConnectionPool, resolveConnection } from "../../../shared/nats/index.ts";
import { operatorNamespace } from "../../../shared/runtime/index.ts";
import { ACCOUNT_BALANCER, type NatsBalancer } from "./resource.ts";
import type { NatsSystemBalancer } from "../system/resource.ts";
import type { StreamRef } from "../pass/types.ts";
import { type MoveLease, readLease } from "../pass/lease.ts";
import { readClusters } from "../pass/read-clusters.ts";
import { connectResolved } from "../pass/connection.ts";
import type { BalancerConnection } from "../pass/connection.ts";
import type { PoolResource } from "./pools.ts";
import { type AccountReading, readAccount } from "./read-account.ts";
import type { CoveredCluster } from "../pass/rollout.ts";
import { streamsUnderEvacuation } from "../evacuation/under-evacuation.ts";

export type AccountView =
  | ({ kind: "read"; lease: MoveLease; evacuating: StreamRef[] } & AccountReading)
  | { kind: "unavailable"; reason: Reason; message: string };

export interface AccountObserved {
  balancer: NatsBalancer;
  resources: PoolResource[];
  systemBalancers: NatsSystemBalancer[];
  clusters: CoveredCluster[];
  nats: AccountView;
}

type ConnectionRef = { name: string; namespace?: string };
type Selectable = KubeObject & { spec?: { name?: string; connectionRef?: ConnectionRef } };

const POOLED_KINDS = [
  { info: KINDS.NatsStream, stream: (name: string) => name },
  { info: KINDS.NatsKeyValue, stream: (name: string) => `KV_${name}` },
  { info: KINDS.NatsObjectStore, stream: (name: string) => `OBJ_${name}` },
] as const;

const connectionKey = (ref: ConnectionRef, namespace: string) => `${ref.namespace ?? namespace}/${ref.name}`;

/** The balancer's connection, or why there is none (the connection reasons of the catalogue). */
export async function accountConnection(
  kube: Kube,
  pool: ConnectionPool,
  balancer: NatsBalancer,
): Promise<BalancerConnection> {
  const referrer = {
    group: ACCOUNT_BALANCER.group,
    kind: ACCOUNT_BALANCER.kind,
    namespace: balancer.metadata.namespace,
  };
  return connectResolved(kube, pool, await resolveConnection(kube, referrer, balancer.spec.connectionRef));
}

/** The pool candidates: resources in the balancer's namespace on the same connection. */
async function readResources(kube: Kube, balancer: NatsBalancer): Promise<PoolResource[]> {
  const { namespace } = balancer.metadata;
  const mine = connectionKey(balancer.spec.connectionRef, namespace);
  const lists = await Promise.all(
    POOLED_KINDS.map(async ({ info, stream }) =>
      (await kube.list<Selectable>({ apiVersion: info.apiVersion, kind: info.kind, namespace }))
        .filter((o) => o.spec?.connectionRef && connectionKey(o.spec.connectionRef, namespace) === mine)
        .map((o) => ({
          describe: `${info.kind} ${namespace}/${o.metadata.name}`,
          stream: stream(o.spec?.name ?? o.metadata.name),
          labels: o.metadata.labels ?? {},
        })),
    ),
  );
  return lists.flat();
}

export async function observeAccount(
  kube: Kube,
  pool: ConnectionPool,
  balancer: NatsBalancer,
): Promise<AccountObserved> {
  const [resources, systemBalancers, connected] = await Promise.all([
    readResources(kube, balancer),
    kube.list<NatsSystemBalancer>({
      apiVersion: KINDS.NatsSystemBalancer.apiVersion,
      kind: KINDS.NatsSystemBalancer.kind,
    }),
    accountConnection(kube, pool, balancer),
  ]);
  const base = { balancer, resources, systemBalancers, clusters: [] };
  if (!connected.ok)
    return { ...base, nats: { kind: "unavailable", reason: connected.reason, message: connected.message } };
  const reading = await readAccount(connected.nc);
  if (!reading.ok) return { ...base, nats: { kind: "unavailable", reason: reading.reason, message: reading.message } };
  const { ok: _ok, ...account } = reading;
  const [lease, evacuating, clusters] = await Promise.all([
    // The same lease as the system balancer's: one mover per NATS cluster, whichever kind (B9).
    readLease(kube, operatorNamespace() ?? balancer.metadata.namespace, account.cluster),
    streamsUnderEvacuation(kube, pool, balancer, connected.nc, account.cluster, false),
    readClusters(kube, balancer.metadata.namespace, connected.connection),
  ]);
  return { ...base, clusters, nats: { kind: "read", ...account, lease, evacuating } };
}
