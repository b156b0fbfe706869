// What the route TLS Secrets come to (pure): off, ready to mount, waited for, held by someone
// else, or to be issued. Key generation is not pure, so a Secret to write is an order that
// issue-route-tls.ts carries out; the judgement itself only reads certificates.
import { isControlledBy } from "../../../shared/kube/index.ts";
import type { Cluster } from "../cluster.ts";
import { readCertificate } from "./certificate.ts";
import { caUsable, leafRenewalReason } from "./route-certificates.ts";
import { readCa, readLeaf, type RouteSecrets, type SecretObject } from "./route-secrets.ts";

/** The route TLS a render is planned with. */
export type RouteTls =
  | { kind: "off" }
  /** `certificate`: a self-signed leaf's expiry and due date; `renewed`: written over the mounted one in this delivery. */
  | { kind: "ready"; data: Record<string, string>; certificate?: CertificateTimes; renewed?: boolean }
  | { kind: "waiting"; message: string }
  | { kind: "foreign"; objects: string[] };

/** An order to write the self-signed route Secrets: the CA when it is missing or unusable, and a leaf. */
export interface IssueRouteTls {
  kind: "issue";
  /** Keep the stored CA, create one (none stored: the first writer wins), or write over an unusable one. */
  ca: "keep" | "create" | "replace";
  /** Create the mounted Secret (none stored) or renew the leaf it holds. */
  leaf: "create" | "renew";
  reason: string;
}

/** When a self-signed leaf expires, and when it falls due: once a third of its life remains. */
export interface CertificateTimes {
  notAfter: Date;
  renewAt: Date;
}

function certificateTimes(certificatePem: string): CertificateTimes | undefined {
  const certificate = readCertificate(certificatePem);
  if (!certificate) return undefined;
  const notBefore = new Date(certificate.validFrom).getTime();
  const notAfter = new Date(certificate.validTo).getTime();
  return { notAfter: new Date(notAfter), renewAt: new Date(notAfter - (notAfter - notBefore) / 3) };
}

/**
 * What the route Secrets come to at `now`. A named Secret is read as is and waited for until it
 * holds the certificate, key and CA; self-signed Secrets are issued or renewed when missing or
 * due, keeping a usable CA.
 */
export function judgeRouteTls(secrets: RouteSecrets, cluster: Cluster, now: Date): RouteTls | IssueRouteTls {
  const { plan, mounted, ca } = secrets;
  if (!plan.enabled) return { kind: "off" };
  if (!plan.selfSigned) {
    if (!mounted?.data?.["tls.crt"] || !mounted.data["tls.key"] || !mounted.data["ca.crt"]) {
      return { kind: "waiting", message: `Secret ${plan.secretName} does not hold tls.crt, tls.key and ca.crt yet` };
    }
    return { kind: "ready", data: mounted.data };
  }
  const foreign = [ca, mounted]
    .filter((s): s is SecretObject => s !== undefined && !isControlledBy(s, cluster))
    .map((s) => `Secret ${s.metadata.name}`);
  if (foreign.length > 0) return { kind: "foreign", objects: foreign };

  const leaf = mounted ? "renew" : "create";
  const storedCa = ca ? readCa(ca) : undefined;
  if (!storedCa || !caUsable(storedCa, now)) {
    const reason = storedCa ? "the route CA is expired or does not match its key" : "no usable route CA";
    return { kind: "issue", ca: ca ? "replace" : "create", leaf, reason };
  }
  const storedLeaf = mounted ? readLeaf(mounted) : undefined;
  const reason = leafRenewalReason(storedCa, storedLeaf, now);
  if (reason !== undefined || !storedLeaf || !mounted?.data)
    return { kind: "issue", ca: "keep", leaf, reason: reason ?? "no route certificate" };
  const certificate = certificateTimes(storedLeaf.certificatePem);
  return {
    kind: "ready",
    data: mounted.data,
    ...(certificate ? { certificate } : {}),
    ...(secrets.renewed ? { renewed: true } : {}),
  };
}

/**
 * The route TLS to render with once phase 1 has acted: an order still open means another
 * delivery is writing the Secrets at the same moment, and the render waits for it.
 */
export function routeTlsForRender(secrets: RouteSecrets, cluster: Cluster, now: Date): RouteTls {
  const judged = judgeRouteTls(secrets, cluster, now);
  if (judged.kind !== "issue") return judged;
  return { kind: "waiting", message: `Secret ${secrets.plan.secretName} is being written concurrently` };
}
