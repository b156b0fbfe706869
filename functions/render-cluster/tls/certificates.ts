// The cert-manager Certificates of a NatsCluster's listeners (C9, C12): read in observe, judged
// here (pure) into the applies and deletes that make them what the spec asks for. cert-manager
// itself issues them into the Secrets the servers mount; the servers wait for those Secrets as for
// a named one. Without cert-manager, the Certificate kind is unknown: nothing is written and the
// render failure says so, while the servers keep waiting.
import type { Kube } from "../../../shared/kube/client.ts";
import { containsRendered } from "../../../shared/kube/contains.ts";
import { isKubeRequestError } from "../../../shared/kube/errors.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { describeObject, isControlledBy } from "../../../shared/kube/ownership.ts";
import {
  CERTIFICATE_API_VERSION,
  CERTIFICATE_KIND,
  CERTIFICATE_LISTENERS,
  type CertificateListener,
  certificateName,
  type Cluster,
  planCertificates,
  type RenderFailure,
} from "../../cluster/index.ts";
import type { RenderWrite } from "../writes.ts";

/** The Certificates of the cluster's namespace by name, or `unknown` when the kind is not served. */
export type ObservedCertificates = { kind: "known"; byName: Map<string, KubeObject> } | { kind: "unknown" };

/** Reads the namespace's Certificates; a kind the API server does not serve (404) reads as unknown. */
export async function readCertificates(kube: Kube, cluster: Cluster): Promise<ObservedCertificates> {
  try {
    const list = await kube.list<KubeObject>({
      apiVersion: CERTIFICATE_API_VERSION,
      kind: CERTIFICATE_KIND,
      namespace: cluster.metadata.namespace ?? "default",
    });
    return { kind: "known", byName: new Map(list.map((c) => [c.metadata.name, c])) };
  } catch (error) {
    if (isKubeRequestError(error) && error.isNotFound) return { kind: "unknown" };
    throw error;
  }
}

/** The condition reason a listener's missing certificate reads as. */
const WAIT_REASONS: Record<CertificateListener, string> = {
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
  return verdict;
}
