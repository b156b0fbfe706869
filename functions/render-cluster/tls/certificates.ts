// The cert-manager Certificates of a NatsCluster's listeners (C9, C12): read in observe, judged
// here (pure) into the applies and deletes that make them what the spec asks for. cert-manager
// itself issues them into the Secrets the servers mount; the servers wait for those Secrets as for
// a named one. Without cert-manager, the Certificate kind is unknown: nothing is written and the
// render failure says so, while the servers keep waiting. An issuer of cert-manager.io that does
// not exist holds the render (issuers.ts reads it): cert-manager would never issue, and the servers
// would wait for a Secret without anyone saying why.
import {
  containsRendered,
  describeObject,
  isControlledBy,
  isKubeRequestError,
  type Kube,
  type KubeObject,
} from "../../../shared/kube/index.ts";
import {
  CERTIFICATE_API_VERSION,
  CERTIFICATE_KIND,
  CERTIFICATE_LISTENERS,
  type CertificateListener,
  certificateName,
  type CertificatePlan,
  type Cluster,
  planCertificates,
  type RenderFailure,
} from "../../cluster/index.ts";
import type { RenderWrite } from "../writes.ts";
import { type CheckedIssuer, checkedIssuer, issuerKey, type ObservedIssuers, readIssuers } from "./issuers.ts";
import type { Reason } from "../../../shared/api/index.ts";

/**
 * The Certificates of the cluster's namespace by name, and whether the issuers the spec's
 * Certificates name exist; or `unknown` when the kind is not served.
 */
export type ObservedCertificates =
  { kind: "known"; byName: Map<string, KubeObject>; issuers: ObservedIssuers } | { kind: "unknown" };

/** Reads the namespace's Certificates; a kind the API server does not serve (404) reads as unknown. */
async function listCertificates(kube: Kube, cluster: Cluster): Promise<Map<string, KubeObject> | undefined> {
  try {
    const list = await kube.list<KubeObject>({
      apiVersion: CERTIFICATE_API_VERSION,
      kind: CERTIFICATE_KIND,
      namespace: cluster.metadata.namespace ?? "default",
    });
    return new Map(list.map((c) => [c.metadata.name, c]));
  } catch (error) {
    if (isKubeRequestError(error) && error.isNotFound) return undefined;
    throw error;
  }
}

/**
 * The namespace's Certificates, then (only once the kind is known to be served, so that a 404 on
 * an issuer means the issuer and not cert-manager is missing) the issuers the spec names.
 */
export async function readCertificates(kube: Kube, cluster: Cluster): Promise<ObservedCertificates> {
  const byName = await listCertificates(kube, cluster);
  if (!byName) return { kind: "unknown" };
  const wanted = planCertificates(cluster).wanted.map((c) => c.object);
  return { kind: "known", byName, issuers: await readIssuers(kube, cluster, wanted) };
}

/** The condition reason a listener's missing certificate reads as. */
const WAIT_REASONS: Record<CertificateListener, Reason> = {
  client: "ClientCertificateNotReady",
  routes: "RouteCertificateNotReady",
  gateway: "GatewayCertificateNotReady",
  leafnodes: "LeafnodesCertificateNotReady",
};

/** Where each listener's certificate source sits in the spec, for messages. */
const FIELDS: Record<CertificateListener, string> = {
  client: "spec.tls",
  routes: "spec.routes.tls",
  gateway: "spec.gateway.tls",
  leafnodes: "spec.leafnodes.tls",
};

const byListener = (a: CertificateListener, b: CertificateListener): number =>
  CERTIFICATE_LISTENERS.indexOf(a) - CERTIFICATE_LISTENERS.indexOf(b);

export const UNKNOWN_KIND_MESSAGE = "cert-manager Certificate is not a known kind";

export interface CertificateVerdict {
  writes: RenderWrite[];
  /** Certificates of our names that this NatsCluster does not control, left untouched. */
  foreign: string[];
  /** Why a listener's Certificate cannot be asked for: the servers wait meanwhile. */
  failure?: RenderFailure;
  /**
   * An issuer the spec names that does not exist: the render is held (nothing but the
   * Certificates written), as for a refused trust.
   */
  hold?: RenderFailure;
}

/** The message for a missing issuer: the field that names it, and the fix. */
function missingIssuerMessage(cluster: Cluster, listener: CertificateListener, issuer: CheckedIssuer): string {
  const where =
    issuer.kind === "ClusterIssuer"
      ? "which does not exist"
      : `which does not exist in namespace ${cluster.metadata.namespace ?? "default"}`;
  return (
    `${FIELDS[listener]}.certManager.issuerRef names ${issuer.kind} ${issuer.name}, ${where}: create it, or ` +
    `name another issuer (nothing is rendered until then; the servers keep their last render)`
  );
}

/** The first listener, in listener order, whose Certificate names an issuer read as missing. */
function missingIssuer(cluster: Cluster, plan: CertificatePlan, issuers: ObservedIssuers): RenderFailure | undefined {
  for (const { listener, object } of [...plan.wanted].sort((a, b) => byListener(a.listener, b.listener))) {
    const issuer = checkedIssuer(object);
    if (issuer && issuers.get(issuerKey(issuer)) === "missing")
      return { reason: WAIT_REASONS[listener], message: missingIssuerMessage(cluster, listener, issuer) };
  }
  return undefined;
}

/**
 * What the Certificates come to: each one the spec asks for applied when it differs, each of ours
 * that no listener names any more deleted (C12); nothing while the kind is unknown.
 */
export function judgeCertificates(cluster: Cluster, observed: ObservedCertificates): CertificateVerdict {
  const plan = planCertificates(cluster);
  if (observed.kind === "unknown") {
    const first = [...plan.wanted, ...plan.unplanned].map((c) => c.listener).sort(byListener)[0];
    if (first === undefined) return { writes: [], foreign: [] };
    return {
      writes: [],
      foreign: [],
      failure: {
        reason: WAIT_REASONS[first],
        message:
          `${UNKNOWN_KIND_MESSAGE}: ${FIELDS[first]}.certManager asks cert-manager for the certificate; install ` +
          `cert-manager (the servers wait for it), or name a Secret in ${FIELDS[first]}.secretRef instead`,
      },
    };
  }
  const verdict: CertificateVerdict = { writes: [], foreign: [] };
  for (const { object: wanted } of plan.wanted) {
    const existing = observed.byName.get(wanted.metadata.name);
    if (existing && !isControlledBy(existing, cluster)) verdict.foreign.push(describeObject(existing));
    else if (!existing || !containsRendered(existing, wanted)) verdict.writes.push({ kind: "apply", object: wanted });
  }
  const wantedNames = new Set(plan.wanted.map((c) => c.object.metadata.name));
  for (const listener of CERTIFICATE_LISTENERS) {
    const name = certificateName(cluster.metadata.name, listener);
    const existing = observed.byName.get(name);
    if (existing && !wantedNames.has(name) && isControlledBy(existing, cluster))
      verdict.writes.push({ kind: "delete", object: existing });
  }
  const unplanned = plan.unplanned[0];
  if (unplanned) verdict.failure = { reason: WAIT_REASONS[unplanned.listener], message: unplanned.message };
  // The Certificates above are still applied under a missing issuer: a Certificate reaches no
  // server (only the Secret cert-manager writes does, once an issuer signs), and applied now it is
  // issued the moment the issuer appears, by cert-manager's own watch on issuers, whose Secret
  // write then renders the cluster again (referrers.ts) without waiting for the poll.
  const hold = missingIssuer(cluster, plan, observed.issuers);
  if (hold) verdict.hold = hold;
  return verdict;
}
