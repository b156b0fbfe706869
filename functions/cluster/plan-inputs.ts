// What a NatsCluster's plan is made of besides its spec, read the one way both render-cluster
// and step-rollout read it: the trust `spec.auth` names, the route TLS Secrets, the client and
// listener TLS Secrets, the leaf remotes, and the namespace the operator runs in. planOf
// (plan-of.ts) makes the plan of them, so both functions see the same revision by construction.
import { KINDS } from "../../shared/api/index.ts";
import type { Kube } from "../../shared/kube/index.ts";
import { type KindRef, operatorNamespace } from "../../shared/runtime/index.ts";
import type { Cluster } from "./cluster.ts";
import { type LeafRemotes, resolveLeafRemotes } from "./leaf-remotes.ts";
import { type ListenerSecrets, readListenerSecrets } from "./listeners.ts";
import { clientTlsSecretName } from "./plan/cluster-plan.ts";
import { readRouteSecrets, type RouteSecrets, secretKey, type SecretObject } from "./route-tls/route-secrets.ts";
import { resolveTrust } from "./trust/trust.ts";
import type { ReadyTrust, RefusedTrust } from "./trust/trust-validation.ts";

/**
 * The kinds a plan is made of besides the NatsCluster: a change of one is a new revision. Both
 * functions record what they read of them (the resync reconciles the cluster again when one changed).
 */
export const PLAN_INPUT_KINDS: readonly KindRef[] = [
  ...[KINDS.NatsOperatorTrust, KINDS.NatsAccountTrust, KINDS.NatsConnection, KINDS.NatsReferenceGrant].map(
    ({ apiVersion, kind }) => ({ apiVersion, kind }),
  ),
  { apiVersion: "v1", kind: "Secret" },
];

/** Plain data: the inputs of a plan, as read (and the route Secrets, after render-cluster's phase 1, as written). */
export interface PlanInputs {
  cluster: Cluster;
  /** The trust `spec.auth` resolved to; absent without auth, or while it is refused. */
  trust?: ReadyTrust;
  /** The namespace the operator runs in (admitted to the monitoring port). */
  operatorNamespace?: string;
  routes: RouteSecrets;
  /** The client TLS Secret `spec.tls` names, when it exists. */
  clientTls?: SecretObject;
  /** The gateway and leafnode listener TLS Secrets' data. */
  listeners: ListenerSecrets;
  /** The leaf remotes as read: rendered, or refused and left out. */
  leafRemotes: LeafRemotes;
}

/** The inputs as read, with the trust's refusal when it is refused: the cluster is then held at its last render. */
export interface ReadPlanInputs extends PlanInputs {
  refused?: RefusedTrust;
}

/** Reads the inputs of the cluster's plan (reads only). */
export async function readPlanInputs(kube: Kube, cluster: Cluster): Promise<ReadPlanInputs> {
  const clientName = clientTlsSecretName(cluster);
  const [trust, routes, clientTls, listeners] = await Promise.all([
    resolveTrust(kube, cluster),
    readRouteSecrets(kube, cluster),
    clientName ? kube.get<SecretObject>(secretKey(cluster, clientName)) : Promise.resolve(undefined),
    readListenerSecrets(kube, cluster),
  ]);
  const ready = trust?.kind === "ready" ? trust : undefined;
  const leafRemotes = await resolveLeafRemotes(kube, cluster, ready);
  const namespace = operatorNamespace();
  return {
    cluster,
    ...(ready ? { trust: ready } : {}),
    ...(trust?.kind === "refused" ? { refused: trust } : {}),
    ...(namespace ? { operatorNamespace: namespace } : {}),
    routes,
    ...(clientTls ? { clientTls } : {}),
    listeners,
    leafRemotes,
  };
}
