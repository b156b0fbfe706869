// The self-signed route TLS of a cluster: a CA kept in `<name>-routes-ca` (never mounted) and
// a leaf in `<name>-routes-tls`, valid a year and re-issued under the same CA once a third remains.
import { issueCertificate, privateKeyOf, readCertificate } from "./certificate.ts";

export const LEAF_VALIDITY_MS = 365 * 24 * 3600 * 1000;
export const CA_VALIDITY_MS = 10 * LEAF_VALIDITY_MS;
const BACKDATE_MS = 3600 * 1000;

/** PEM texts as stored (decoded) in the Secrets. */
export interface RouteCa {
  certificatePem: string;
  keyPem: string;
}
export interface RouteLeaf {
  caPem: string;
  certificatePem: string;
  keyPem: string;
}

export const caCommonName = (cluster: string) => `${cluster} route CA`;
export const leafCommonName = (cluster: string) => `${cluster} routes`;
export const routeDnsNames = (cluster: string, namespace: string) => [
  `*.${cluster}-headless.${namespace}.svc`,
  `*.${cluster}-headless.${namespace}.svc.cluster.local`,
];

/** Whether a stored CA can go on signing: readable, unexpired, and matching its key. */
export function caUsable(stored: RouteCa, now: Date): boolean {
  const certificate = readCertificate(stored.certificatePem);
  try {
    return (
      certificate !== undefined &&
      new Date(certificate.validTo).getTime() > now.getTime() &&
      certificate.checkPrivateKey(privateKeyOf(stored.keyPem))
    );
  } catch {
    // An unreadable key: the CA cannot sign.
    return false;
  }
}

/** A new self-signed CA for the cluster's routes, valid ten years (a fresh key each time). */
export function issueCa(cluster: string, now: Date): RouteCa {
  const issued = issueCertificate({
    commonName: caCommonName(cluster),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    isCa: true,
  });
  return { certificatePem: issued.certificatePem, keyPem: issued.keyPem };
}

/** Why the stored leaf must be re-issued, or undefined when it is still good. */
export function leafRenewalReason(ca: RouteCa, leaf: RouteLeaf | undefined, now: Date): string | undefined {
  if (!leaf) return "no route certificate";
  const certificate = readCertificate(leaf.certificatePem);
  const authority = readCertificate(ca.certificatePem);
  if (!certificate || !authority) return "unreadable route certificate";
  if (
    leaf.caPem !== ca.certificatePem ||
    !certificate.checkIssued(authority) ||
    !certificate.verify(authority.publicKey)
  )
    return "route certificate not issued by the route CA";
  const notBefore = new Date(certificate.validFrom).getTime();
  const notAfter = new Date(certificate.validTo).getTime();
  if (notAfter - now.getTime() <= (notAfter - notBefore) / 3) return "a third of the route certificate's life remains";
  return undefined;
}

export function issueLeaf(cluster: string, namespace: string, ca: RouteCa, now: Date): RouteLeaf {
  const issued = issueCertificate(
    {
      commonName: leafCommonName(cluster),
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      notAfter: new Date(now.getTime() + LEAF_VALIDITY_MS),
      isCa: false,
      dnsNames: routeDnsNames(cluster, namespace),
    },
    { commonName: caCommonName(cluster), key: privateKeyOf(ca.keyPem) },
  );
  return { caPem: ca.certificatePem, certificatePem: issued.certificatePem, keyPem: issued.keyPem };
}
