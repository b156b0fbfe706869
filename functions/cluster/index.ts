/**
 * The NatsCluster domain: the Cluster type and how its objects are named, which cluster an
 * event is about, the trust it runs under (trust/), its route TLS (route-tls/), the inputs its
 * plan is made of (plan-inputs.ts) and the plan of everything rendered for it (plan-of.ts, plan/). render-cluster and step-rollout use it only through this module.
 */
export { asCluster, type Cluster } from "./cluster.ts";
export {
  CLUSTER_API_VERSION,
  CLUSTER_KIND,
  claimName,
  clusterLabels,
  configMapName,
  leafRemotesSecretName,
  monitorUrl,
  ordinalOf,
  podName,
  PORTS,
  routesCaSecretName,
  scheduleName,
  serverLabels,
} from "./names.ts";
export { isClaimLeftBehind, isServerClaim } from "./old-claim.ts";
export { operatorNamespace } from "../../shared/runtime/index.ts";
export {
  ALLOW_GATEWAY_WITHOUT_TLS_ENV,
  allowGatewayWithoutTls,
  judgeListeners,
  readListenerSecrets,
  type ListenerSecrets,
  type ListenerVerdict,
} from "./listeners.ts";
export {
  judgeGateways,
  judgeLeafRemotes,
  type GatewayMemberStatus,
  type Gatewayz,
  type LeafRemoteStatus,
  type Leafz,
  type ServerConnectivity,
} from "./connectivity.ts";
export { resolveLeafRemotes, type LeafRemotes, type RefusedLeafRemote } from "./leaf-remotes.ts";
export { type ReadyLeafRemote } from "./plan/leafnodes.ts";
export {
  CERTIFICATE_API_VERSION,
  CERTIFICATE_KIND,
  CERTIFICATE_LISTENERS,
  certificateName,
  certificateSecretName,
  planCertificates,
  type CertificateListener,
  type CertificateObject,
  type CertificatePlan,
} from "./plan/certificates.ts";
export { joinsSuperclusterMetaGroup } from "./plan/gateway.ts";
export { CONFIG_KEY } from "./plan/paths.ts";
export { EXPORTER_TAG } from "./plan/statefulset.ts";
export { runsStandaloneJetStream } from "./plan/server-config.ts";
export {
  clientTlsSecretName,
  planCluster,
  routeTlsPlan,
  type ClusterPlan,
  type PlannedServer,
  type RouteTlsPlan,
} from "./plan/cluster-plan.ts";
export { failureMessage, GENERIC_FAILURE_REASON, renderFailureReason, type RenderFailure } from "./render-failure.ts";
export { LINK_WATCH_POLL, ROLLOUT_POLL, rolloutPoll } from "./schedules.ts";
export { PLAN_INPUT_KINDS, readPlanInputs, type PlanInputs, type ReadPlanInputs } from "./plan-inputs.ts";
export { planOf, type Hold, type PlannedCluster, type PlanOptions } from "./plan-of.ts";
export {
  readCa,
  readLeaf,
  readRouteSecrets,
  routeSecret,
  secretKey,
  type RouteSecrets,
  type SecretObject,
} from "./route-tls/route-secrets.ts";
export {
  judgeRouteTls,
  routeTlsForRender,
  type CertificateTimes,
  type IssueRouteTls,
  type RouteTls,
} from "./route-tls/route-tls.ts";
export { issueCa, issueLeaf, leafRenewalReason, type RouteCa, type RouteLeaf } from "./route-tls/route-certificates.ts";
export { CLUSTER_REF, fromClusterTicks, fromServerStatefulSets, readCluster } from "./related.ts";
export { resolveTrust } from "./trust/trust.ts";
export type { ReadyTrust, RefusedTrust } from "./trust/trust-validation.ts";
