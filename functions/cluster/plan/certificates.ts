// The cert-manager Certificates a NatsCluster asks for (C9, C12): one per listener whose TLS names
// `certManager`, issued into the Secret the servers mount for that listener, so the servers wait
// for it as they wait for a named Secret. Pure: what to issue for, never whether it is issued.
import { isIP } from "node:net";
import { controllerReference, type KubeObject } from "../../../shared/kube/index.ts";
import type { Cluster as NatsCluster } from "../cluster.ts";
import { clusterLabels, headlessServiceName, leafnodesServiceName } from "../names.ts";

export const CERTIFICATE_API_VERSION = "cert-manager.io/v1";
export const CERTIFICATE_KIND = "Certificate";

/** The listeners a Certificate can be asked for, in the order they are planned. */
export const CERTIFICATE_LISTENERS = ["client", "routes", "gateway", "leafnodes"] as const;
export type CertificateListener = (typeof CERTIFICATE_LISTENERS)[number];

/** `<cluster>-<listener>`: the Certificate; its Secret is `<cluster>-<listener>-tls`. */
export const certificateName = (cluster: string, listener: CertificateListener): string => `${cluster}-${listener}`;

export interface CertificateSpec {
  secretName: string;
  issuerRef: { name: string; kind: string; group: string };
  dnsNames?: string[];
  ipAddresses?: string[];
  usages: string[];
  privateKey: { algorithm: "ECDSA"; size: 256; rotationPolicy: "Always" };
}

export type CertificateObject = KubeObject & { spec: CertificateSpec };

/** A listener's certificate that cannot be asked for yet: no host to issue it for. */
export interface UnplannedCertificate {
  listener: CertificateListener;
  message: string;
}

export interface PlannedCertificate {
  listener: CertificateListener;
  /** As it is applied. */
  object: CertificateObject;
}

export interface CertificatePlan {
  /** The Certificates the spec asks for. */
  wanted: PlannedCertificate[];
  /** Listeners naming certManager whose Certificate cannot be written yet. */
  unplanned: UnplannedCertificate[];
}

type IssuerReference = { name: string; kind?: string; group?: string };

/** The host of `host:port` or of a URL such as `tls://host:7222`; IPv6 in brackets is unwrapped. */
export function hostOf(address: string): string | undefined {
  const withScheme = address.includes("://") ? address : `tls://${address}`;
  try {
    const host = new URL(withScheme).hostname;
    return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host || undefined;
  } catch {
    return undefined;
  }
}

/** A Service's DNS names, short to fully qualified. */
const serviceNames = (service: string, namespace: string): string[] => [
  service,
  `${service}.${namespace}`,
  `${service}.${namespace}.svc`,
  `${service}.${namespace}.svc.cluster.local`,
];

/** Every server's pod name (what routes dial, and what a client reconnects to). */
const serverNames = (cluster: string, namespace: string): string[] => [
  `*.${headlessServiceName(cluster)}.${namespace}.svc`,
  `*.${headlessServiceName(cluster)}.${namespace}.svc.cluster.local`,
];

interface Wanted {
  listener: CertificateListener;
  issuerRef: IssuerReference;
  hosts: string[];
  /** Whether servers present the certificate as clients too (routes, gateways dial each other). */
  clientAuth: boolean;
}

/** What each listener naming certManager is issued for; undefined hosts: none known yet. */
function wantedListeners(cluster: NatsCluster): (Wanted | UnplannedCertificate)[] {
  const { spec } = cluster;
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace ?? "default";
  const out: (Wanted | UnplannedCertificate)[] = [];
  const clientIssuer = spec.tls?.certManager?.issuerRef;
  if (clientIssuer) {
    out.push({
      listener: "client",
      issuerRef: clientIssuer,
      hosts: [...serviceNames(name, namespace), ...serverNames(name, namespace)],
      clientAuth: false,
    });
  }
  const routes = spec.routes?.tls;
  if (routes?.certManager && routes.enabled !== false) {
    out.push({
      listener: "routes",
      issuerRef: routes.certManager.issuerRef,
      hosts: serverNames(name, namespace),
      clientAuth: true,
    });
  }
  const gateway = spec.gateway;
  if (gateway?.tls?.certManager) {
    const own = gateway.remotes.find((r) => r.name === name)?.url;
    const hosts = [own, gateway.advertise].flatMap((a) => {
      const host = a ? hostOf(a) : undefined;
      return host ? [host] : [];
    });
    out.push(
      hosts.length > 0
        ? { listener: "gateway", issuerRef: gateway.tls.certManager.issuerRef, hosts, clientAuth: true }
        : {
            listener: "gateway",
            message:
              "the gateway certificate names the host other members dial, and none is known: set " +
              `gateway.advertise, or list this cluster (${name}) in gateway.remotes with its URL`,
          },
    );
  }
  const leafnodes = spec.leafnodes;
  if (leafnodes?.tls?.certManager) {
    const advertised = leafnodes.advertise ? hostOf(leafnodes.advertise) : undefined;
    out.push({
      listener: "leafnodes",
      issuerRef: leafnodes.tls.certManager.issuerRef,
      hosts: [...serviceNames(leafnodesServiceName(name), namespace), ...(advertised ? [advertised] : [])],
      clientAuth: false,
    });
  }
  return out;
}

/** The Secret a listener's Certificate is issued into: the one the servers mount for that listener. */
export const certificateSecretName = (cluster: string, listener: CertificateListener): string =>
  `${certificateName(cluster, listener)}-tls`;

function certificateObject(cluster: NatsCluster, wanted: Wanted): CertificateObject {
  const name = cluster.metadata.name;
  const hosts = [...new Set(wanted.hosts)];
  const ipAddresses = hosts.filter((h) => isIP(h) !== 0);
  const dnsNames = hosts.filter((h) => isIP(h) === 0);
  return {
    apiVersion: CERTIFICATE_API_VERSION,
    kind: CERTIFICATE_KIND,
    metadata: {
      name: certificateName(name, wanted.listener),
      namespace: cluster.metadata.namespace ?? "default",
      labels: clusterLabels(name),
      ownerReferences: [controllerReference(cluster as KubeObject)],
    },
    spec: {
      secretName: certificateSecretName(name, wanted.listener),
      issuerRef: {
        name: wanted.issuerRef.name,
        kind: wanted.issuerRef.kind ?? "Issuer",
        group: wanted.issuerRef.group ?? "cert-manager.io",
      },
      ...(dnsNames.length > 0 ? { dnsNames } : {}),
      ...(ipAddresses.length > 0 ? { ipAddresses } : {}),
      usages: wanted.clientAuth
        ? ["digital signature", "server auth", "client auth"]
        : ["digital signature", "server auth"],
      // A renewal brings a new key too, so a leaked key does not outlive its certificate.
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
    },
  };
}

/** The Certificates the NatsCluster asks for, and those it cannot ask for yet. */
export function planCertificates(cluster: NatsCluster): CertificatePlan {
  const plan: CertificatePlan = { wanted: [], unplanned: [] };
  for (const entry of wantedListeners(cluster)) {
    if ("message" in entry) plan.unplanned.push(entry);
    else plan.wanted.push({ listener: entry.listener, object: certificateObject(cluster, entry) });
  }
  return plan;
}
