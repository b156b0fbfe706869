// Whether the cert-manager issuers the NatsCluster's Certificates name exist (issue #13). cert-manager
// leaves a Certificate whose issuer is missing unissued and says so only on the Certificate, so the
// servers would wait for their Secret without the NatsCluster ever saying why. Read here, at the
// edge; judged in certificates.ts. Only issuers of group cert-manager.io are checked: an external
// issuer's kind is its own project's, and whether it exists is not ours to know.
import { isKubeRequestError, type Kube, type KubeObject } from "../../../shared/kube/index.ts";
import type { CertificateObject, Cluster } from "../../cluster/index.ts";

export const ISSUER_GROUP = "cert-manager.io";
export const ISSUER_API_VERSION = `${ISSUER_GROUP}/v1`;

/** An issuer of cert-manager.io's own kinds: an Issuer is in the cluster's namespace, a ClusterIssuer in none. */
export interface CheckedIssuer {
  kind: "Issuer" | "ClusterIssuer";
  name: string;
}

/** What a GET of the issuer answered: found, 404, or anything else (forbidden, unknown kind, an error). */
export type IssuerPresence = "present" | "missing" | "unknown";

/** The presence of each checked issuer the Certificates name, by `issuerKey`; absent reads as unknown. */
export type ObservedIssuers = ReadonlyMap<string, IssuerPresence>;

export const issuerKey = (issuer: CheckedIssuer): string => `${issuer.kind}/${issuer.name}`;

/** The issuer a Certificate names, when it is one whose existence is checked (pure). */
export function checkedIssuer(certificate: CertificateObject): CheckedIssuer | undefined {
  const { name, kind, group } = certificate.spec.issuerRef;
  if (group !== ISSUER_GROUP) return undefined;
  if (kind !== "Issuer" && kind !== "ClusterIssuer") return undefined;
  return { kind, name };
}

/**
 * Reads whether each checked issuer of `certificates` exists. Called only once the Certificate kind
 * is known to be served, so a 404 means the issuer is missing rather than cert-manager. Any other
 * failure (403 without the RBAC, a transient error) reads as unknown: the check only explains a
 * wait, and must never be what fails a render.
 */
export async function readIssuers(
  kube: Kube,
  cluster: Cluster,
  certificates: readonly CertificateObject[],
): Promise<ObservedIssuers> {
  const issuers = new Map<string, CheckedIssuer>();
  for (const certificate of certificates) {
    const issuer = checkedIssuer(certificate);
    if (issuer) issuers.set(issuerKey(issuer), issuer);
  }
  const observed = new Map<string, IssuerPresence>();
  await Promise.all(
    [...issuers].map(async ([key, issuer]) => {
      try {
        const found = await kube.get<KubeObject>({
          apiVersion: ISSUER_API_VERSION,
          kind: issuer.kind,
          // A ClusterIssuer's path has no namespace.
          namespace: issuer.kind === "Issuer" ? (cluster.metadata.namespace ?? "default") : "",
          name: issuer.name,
        });
        observed.set(key, found ? "present" : "missing");
      } catch (error) {
        if (!isKubeRequestError(error)) throw error;
        observed.set(key, "unknown");
      }
    }),
  );
  return observed;
}
