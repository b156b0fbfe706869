// The plan of a NatsCluster from its inputs (plan-inputs.ts), and what the servers wait for or
// are held by: pure, and the one way render-cluster and step-rollout judge them, so neither moves
// servers the other holds back and both see the same revision.
import type { ListenerVerdict } from "./listeners.ts";
import { judgeListeners } from "./listeners.ts";
import { clientTlsSecretName, type ClusterPlan, planCluster } from "./plan/cluster-plan.ts";
import type { PlanInputs, ReadPlanInputs } from "./plan-inputs.ts";
import { type RouteTls, routeTlsForRender } from "./route-tls/route-tls.ts";
import type { Reason } from "../../shared/api/index.ts";

/** How the operator was started, as far as a plan goes. */
export interface PlanOptions {
  /** `NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS=true`: a gateway may run in clear. */
  allowGatewayWithoutTls: boolean;
}

/** Why servers wait or are held, as a condition says it. */
export interface Hold {
  reason: Reason;
  message: string;
}

export interface PlannedCluster {
  plan: ClusterPlan;
  /**
   * The route TLS the plan is made with. A Secret still to be issued or renewed (render-cluster's
   * phase 1) is waited for, as one written concurrently is.
   */
  routeTls: RouteTls;
  listeners: ListenerVerdict;
  /** The client TLS Secret holds its certificate, or none is named. */
  clientReady: boolean;
  /** Every TLS Secret the servers mount holds its certificate: servers may be created or changed. */
  certificatesReady: boolean;
  /** Which certificate is awaited, while one is. */
  certificateWait?: Hold;
  /** Why the servers are held at their last render: a refused trust, or refused listeners. */
  hold?: Hold;
}

/** The plan of `inputs` at `now`, and what its servers wait for (pure). */
export function planOf(inputs: PlanInputs | ReadPlanInputs, now: Date, options: PlanOptions): PlannedCluster {
  const { cluster } = inputs;
  const routeTls = routeTlsForRender(inputs.routes, cluster, now);
  const clientData = inputs.clientTls?.data;
  const plan = planCluster({
    cluster,
    ...(routeTls.kind === "ready" ? { routeTlsData: routeTls.data } : {}),
    ...(clientData ? { clientTlsData: clientData } : {}),
    ...(inputs.listeners.gateway ? { gatewayTlsData: inputs.listeners.gateway } : {}),
    ...(inputs.listeners.leafnodes ? { leafnodesTlsData: inputs.listeners.leafnodes } : {}),
    leafRemotes: inputs.leafRemotes.ready,
    ...(inputs.operatorNamespace ? { operatorNamespace: inputs.operatorNamespace } : {}),
    ...(inputs.trust ? { trust: inputs.trust } : {}),
  });
  const listeners = judgeListeners(cluster, inputs.listeners, options.allowGatewayWithoutTls);
  const routesReady = routeTls.kind === "ready" || routeTls.kind === "off";
  const clientName = clientTlsSecretName(cluster);
  const clientReady = !clientName || Boolean(clientData?.["tls.crt"]);
  const certificateWait: Hold | undefined =
    routeTls.kind === "waiting"
      ? { reason: "RouteCertificateNotReady", message: routeTls.message }
      : routeTls.kind === "foreign"
        ? {
            reason: "RouteCertificateNotReady",
            message: `not controlled by this NatsCluster: ${routeTls.objects.join(", ")}`,
          }
        : !clientReady
          ? { reason: "ClientCertificateNotReady", message: `Secret ${clientName ?? ""} does not hold tls.crt yet` }
          : listeners.kind === "waiting"
            ? { reason: listeners.reason, message: listeners.message }
            : undefined;
  const refused = "refused" in inputs ? inputs.refused : undefined;
  const hold: Hold | undefined = refused
    ? { reason: refused.reason, message: refused.message }
    : listeners.kind === "refused"
      ? { reason: listeners.reason, message: listeners.message }
      : undefined;
  return {
    plan,
    routeTls,
    listeners,
    clientReady,
    certificatesReady: routesReady && clientReady && listeners.kind !== "waiting",
    ...(certificateWait ? { certificateWait } : {}),
    ...(hold ? { hold } : {}),
  };
}
