// The route TLS Secrets of a cluster as read (the CA Secret and the mounted leaf Secret), what
// they hold, and the Secret objects the operator writes for them.
import { controllerReference, type Kube, type KubeObject, type ObjectKey } from "../../../shared/kube/index.ts";
import type { Cluster } from "../cluster.ts";
import { clusterLabels, routesCaSecretName } from "../names.ts";
import { routeTlsPlan, type RouteTlsPlan } from "../plan/cluster-plan.ts";
import type { RouteCa, RouteLeaf } from "./route-certificates.ts";

export type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };

/** The route TLS Secrets, as read (and, after phase 1, as written). */
export interface RouteSecrets {
  plan: RouteTlsPlan;
  /** The Secret the servers mount. */
  mounted?: SecretObject;
  /** The self-signed CA's Secret; read only when the operator issues the certificate. */
  ca?: SecretObject;
  /** Phase 1 wrote a new leaf over the mounted Secret in this delivery. */
  renewed?: boolean;
}

export const secretKey = (cluster: Cluster, name: string): ObjectKey => ({
  apiVersion: "v1",
  kind: "Secret",
  namespace: cluster.metadata.namespace,
  name,
});

/** Reads the route TLS Secrets the cluster's route TLS plan involves: none while route TLS is off. */
export async function readRouteSecrets(kube: Kube, cluster: Cluster): Promise<RouteSecrets> {
  const plan = routeTlsPlan(cluster);
  if (!plan.enabled) return { plan };
  const [mounted, ca] = await Promise.all([
    kube.get<SecretObject>(secretKey(cluster, plan.secretName)),
    plan.selfSigned
      ? kube.get<SecretObject>(secretKey(cluster, routesCaSecretName(cluster.metadata.name)))
      : Promise.resolve(undefined),
  ]);
  return { plan, ...(mounted ? { mounted } : {}), ...(ca ? { ca } : {}) };
}

const decode = (data: Record<string, string> | undefined, key: string): string | undefined =>
  data?.[key] === undefined ? undefined : Buffer.from(data[key], "base64").toString("utf8");
const encode = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]));

/** The CA a CA Secret holds, when it holds a certificate and a key. */
export function readCa(object: SecretObject): RouteCa | undefined {
  const certificatePem = decode(object.data, "tls.crt");
  const keyPem = decode(object.data, "tls.key");
  return certificatePem && keyPem ? { certificatePem, keyPem } : undefined;
}

/** The leaf a mounted Secret holds, when it holds the CA, the certificate and the key. */
export function readLeaf(object: SecretObject): RouteLeaf | undefined {
  const caPem = decode(object.data, "ca.crt");
  const certificatePem = decode(object.data, "tls.crt");
  const keyPem = decode(object.data, "tls.key");
  return caPem && certificatePem && keyPem ? { caPem, certificatePem, keyPem } : undefined;
}

/** A TLS Secret of the cluster's, controlled by it, holding `values` (PEM texts). */
export function routeSecret(cluster: Cluster, name: string, values: Record<string, string>): SecretObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name,
      namespace: cluster.metadata.namespace,
      labels: clusterLabels(cluster.metadata.name),
      ownerReferences: [controllerReference(cluster)],
    },
    type: "kubernetes.io/tls",
    data: encode(values),
  };
}
