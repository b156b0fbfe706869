// Keeps the route TLS Secrets of a cluster: the CA Secret and the mounted leaf Secret.
import type { Kube } from "../../../shared/kube/client.ts";
import { guarded } from "../../../shared/kube/guarded.ts";
import { controllerReference, type KubeObject } from "../../../shared/kube/object.ts";
import { type Cluster, clusterLabels, routesCaSecretName, type RouteTlsPlan } from "../../cluster/index.ts";
import { isControlledBy } from "../../../shared/kube/ownership.ts";
import { readCertificate } from "./certificate.ts";
import { ensureCa, issueLeaf, leafRenewalReason, type RouteCa, type RouteLeaf } from "./route-certificates.ts";

/** When a third of the certificate's life remains. */
function renewalTime(certificatePem: string): Date | undefined {
  const certificate = readCertificate(certificatePem);
  if (!certificate) return undefined;
  const notBefore = new Date(certificate.validFrom).getTime();
  const notAfter = new Date(certificate.validTo).getTime();
  return new Date(notAfter - (notAfter - notBefore) / 3);
}

export type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };

export type RouteTlsState =
  | { kind: "off" }
  | { kind: "ready"; data: Record<string, string>; renewAt?: Date; renewed?: boolean }
  | { kind: "waiting"; message: string }
  | { kind: "foreign"; objects: string[] };

const decode = (data: Record<string, string> | undefined, key: string): string | undefined =>
  data?.[key] === undefined ? undefined : Buffer.from(data[key], "base64").toString("utf8");
const encode = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]));

function secret(cluster: Cluster, name: string, values: Record<string, string>): SecretObject {
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

const secretKey = (cluster: Cluster, name: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  namespace: cluster.metadata.namespace,
  name,
});

/**
 * The data of the route TLS Secret the servers mount. Self-signed: issues or renews what is
 * missing or due, keeping the CA. A named Secret is read as is and waited for.
 */
export async function ensureRouteTls(
  kube: Kube,
  cluster: Cluster,
  plan: RouteTlsPlan,
  now: Date,
  fieldManager: string,
): Promise<RouteTlsState> {
  if (!plan.enabled) return { kind: "off" };
  const mounted = await kube.get<SecretObject>(secretKey(cluster, plan.secretName));
  if (!plan.selfSigned) {
    if (!mounted?.data?.["tls.crt"] || !mounted.data["tls.key"] || !mounted.data["ca.crt"]) {
      return { kind: "waiting", message: `Secret ${plan.secretName} does not hold tls.crt, tls.key and ca.crt yet` };
    }
    return { kind: "ready", data: mounted.data };
  }
  const caName = routesCaSecretName(cluster.metadata.name);
  const caSecret = await kube.get<SecretObject>(secretKey(cluster, caName));
  const foreign = [caSecret, mounted]
    .filter((s): s is SecretObject => s !== undefined && !isControlledBy(s, cluster))
    .map((s) => `Secret ${s.metadata.name}`);
  if (foreign.length > 0) return { kind: "foreign", objects: foreign };

  // Concurrent deliveries must agree on one CA: a missing CA is created (first writer wins)
  // and a loser reads the winner's; only an unusable stored CA is overwritten.
  const storedCa = caSecret ? readCa(caSecret) : undefined;
  const first = ensureCa(cluster.metadata.name, storedCa, now);
  let ca = first.ca;
  if (first.issued) {
    const caObject = secret(cluster, caName, { "tls.crt": ca.certificatePem, "tls.key": ca.keyPem });
    if (caSecret) await kube.apply(caObject, fieldManager);
    else if (!(await createOnce(kube, caObject))) {
      const winner = await kube.get<SecretObject>(secretKey(cluster, caName));
      const stored = winner ? readCa(winner) : undefined;
      if (!stored) throw new Error(`Secret ${caName} was created concurrently but holds no CA`);
      ca = stored;
    }
  }

  let current = mounted;
  let storedLeaf = current ? readLeaf(current) : undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (storedLeaf && leafRenewalReason(ca, storedLeaf, now) === undefined && current?.data) {
      const renewAt = renewalTime(storedLeaf.certificatePem);
      return { kind: "ready", data: current.data, ...(renewAt ? { renewAt } : {}) };
    }
    const leaf = issueLeaf(cluster.metadata.name, cluster.metadata.namespace, ca, now);
    const leafObject = secret(cluster, plan.secretName, {
      "ca.crt": leaf.caPem,
      "tls.crt": leaf.certificatePem,
      "tls.key": leaf.keyPem,
    });
    const renewAt = renewalTime(leaf.certificatePem);
    if (current) {
      const written = await kube.apply(leafObject, fieldManager);
      return {
        kind: "ready",
        data: (written as SecretObject).data ?? {},
        renewed: true,
        ...(renewAt ? { renewAt } : {}),
      };
    }
    if (await createOnce(kube, leafObject))
      return { kind: "ready", data: leafObject.data ?? {}, ...(renewAt ? { renewAt } : {}) };
    // Another delivery issued it first: use theirs when it is good.
    current = await kube.get<SecretObject>(secretKey(cluster, plan.secretName));
    storedLeaf = current ? readLeaf(current) : undefined;
  }
  return { kind: "waiting", message: `Secret ${plan.secretName} is being written concurrently` };
}

/** Creates the object; false when it already exists (another delivery created it first). */
async function createOnce(kube: Kube, object: SecretObject): Promise<boolean> {
  return (await guarded(() => kube.create(object))).kind === "written";
}

function readCa(object: SecretObject): RouteCa | undefined {
  const certificatePem = decode(object.data, "tls.crt");
  const keyPem = decode(object.data, "tls.key");
  return certificatePem && keyPem ? { certificatePem, keyPem } : undefined;
}

function readLeaf(object: SecretObject): RouteLeaf | undefined {
  const caPem = decode(object.data, "ca.crt");
  const certificatePem = decode(object.data, "tls.crt");
  const keyPem = decode(object.data, "tls.key");
  return caPem && certificatePem && keyPem ? { caPem, certificatePem, keyPem } : undefined;
}
