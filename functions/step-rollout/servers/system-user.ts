// The system user a NatsCluster names in `auth.systemCredentials`: how step-rollout reaches the
// JetStream server API that moves a server's data off it and takes it out of the meta group,
// and the `$SYS` server API that reloads a server's config.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Kube } from "../../../shared/kube/index.ts";
import {
  connectWithInbox,
  createConnectionPool,
  jsRequest,
  NatsApiError,
  readConnectionSettings,
} from "../../../shared/nats/index.ts";
import type { Cluster, ClusterPlan } from "../../cluster/index.ts";
import type { RemovalAction } from "../rollout/removal.ts";
import type { SystemUser } from "./types.ts";

/** "server is not a member of the cluster": asked again after the server already left. */
const NOT_A_MEMBER = 10044;
/** "cluster member change is in progress": the phase asks again on a later tick. */
const MEMBER_CHANGE_IN_FLIGHT = 10202;

const SUBJECTS = {
  evacuate: "SERVER.EVACUATE",
  stepdown: "META.LEADER.STEPDOWN",
  "remove-peer": "SERVER.REMOVE",
} as const;

// One connection per NatsCluster per process, reused across deliveries.
const pool = createConnectionPool(connectWithInbox("_INBOX.cluster-controller"), "nats-operator/step-rollout");

/** Reads the system user's credentials (and the client CA when client TLS is on). */
export async function readSystemUser(kube: Kube, cluster: Cluster, plan: ClusterPlan): Promise<SystemUser> {
  const credentials = cluster.spec.auth?.systemCredentials;
  if (!credentials) return { kind: "none" };
  const result = await readConnectionSettings(kube, cluster.metadata.namespace, {
    servers: [plan.status.endpoints.client],
    credentials,
    ...(plan.clientTlsSecret ? { tls: { ca: { secretKeyRef: { name: plan.clientTlsSecret } } } } : {}),
  });
  return result.ok ? { kind: "ready", settings: result.settings } : { kind: "unusable", message: result.message };
}

/** Sends one removal request; each may be sent again without harm. */
export async function sendRemovalRequest(
  cluster: Cluster,
  user: Extract<SystemUser, { kind: "ready" }>,
  action: Exclude<RemovalAction, { kind: "delete" | "delete-claim" }>,
): Promise<void> {
  const nc = await systemConnection(cluster, user);
  try {
    await jsRequest(nc, SUBJECTS[action.kind], action.kind === "stepdown" ? undefined : { peer: action.server });
  } catch (error) {
    if (
      action.kind !== "stepdown" &&
      error instanceof NatsApiError &&
      (error.errCode === NOT_A_MEMBER || error.errCode === MEMBER_CHANGE_IN_FLIGHT)
    )
      return;
    throw error;
  }
}

/** The pooled connection as the system user (also used for the reload requests). */
export function systemConnection(
  cluster: Cluster,
  user: Extract<SystemUser, { kind: "ready" }>,
): Promise<NatsConnection> {
  return pool.acquire(`${cluster.metadata.namespace}/${cluster.metadata.name}`, user.settings);
}

export function closeSystemConnections(): Promise<void> {
  return pool.closeAll();
}
