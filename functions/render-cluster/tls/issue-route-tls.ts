// Carries out an order to issue the self-signed route Secrets (judged in route-tls.ts): generates
// the keys, writes the Secrets, and answers the Secrets as they now stand.
import { guarded, type Kube } from "../../../shared/kube/index.ts";
import {
  type Cluster,
  routesCaSecretName,
  issueCa,
  issueLeaf,
  leafRenewalReason,
  type RouteCa,
  type IssueRouteTls,
  readCa,
  readLeaf,
  type RouteSecrets,
  routeSecret,
  secretKey,
  type SecretObject,
} from "../../cluster/index.ts";

/** Creates the object; false when it already exists (another delivery created it first). */
async function createOnce(kube: Kube, object: SecretObject): Promise<boolean> {
  return (await guarded(() => kube.create(object))).kind === "written";
}

/**
 * The CA the leaf is issued under. Concurrent deliveries must agree on one CA: a missing CA is
 * created (first writer wins) and a loser reads the winner's; only an unusable stored CA is
 * overwritten.
 */
async function settleCa(
  kube: Kube,
  cluster: Cluster,
  secrets: RouteSecrets,
  order: IssueRouteTls,
  now: Date,
  fieldManager: string,
): Promise<{ ca: RouteCa; secret: SecretObject }> {
  const caName = routesCaSecretName(cluster.metadata.name);
  if (order.ca === "keep") {
    const stored = secrets.ca ? readCa(secrets.ca) : undefined;
    if (!secrets.ca || !stored) throw new Error(`Secret ${caName} holds no CA to keep`);
    return { ca: stored, secret: secrets.ca };
  }
  const ca = issueCa(cluster.metadata.name, now);
  const secret = routeSecret(cluster, caName, { "tls.crt": ca.certificatePem, "tls.key": ca.keyPem });
  if (order.ca === "replace") {
    await kube.apply(secret, fieldManager);
    return { ca, secret };
  }
  if (await createOnce(kube, secret)) return { ca, secret };
  const winner = await kube.get<SecretObject>(secretKey(cluster, caName));
  const stored = winner ? readCa(winner) : undefined;
  if (!winner || !stored) throw new Error(`Secret ${caName} was created concurrently but holds no CA`);
  return { ca: stored, secret: winner };
}

/**
 * Issues what the order says and answers the route Secrets as they now stand, for the render to
 * be decided from. A leaf Secret created meanwhile by another delivery is used when it is good
 * under the CA; still unsettled after a second look, the render waits for it.
 */
export async function issueRouteTls(
  kube: Kube,
  cluster: Cluster,
  secrets: RouteSecrets,
  order: IssueRouteTls,
  now: Date,
  fieldManager: string,
): Promise<RouteSecrets> {
  const { ca, secret: caSecret } = await settleCa(kube, cluster, secrets, order, now, fieldManager);
  const { plan } = secrets;
  let current = secrets.mounted;
  for (let attempt = 0; attempt < 2; attempt++) {
    const stored = current ? readLeaf(current) : undefined;
    if (current?.data && stored && leafRenewalReason(ca, stored, now) === undefined)
      return { plan, ca: caSecret, mounted: current };
    const leaf = issueLeaf(cluster.metadata.name, cluster.metadata.namespace, ca, now);
    const mounted = routeSecret(cluster, plan.secretName, {
      "ca.crt": leaf.caPem,
      "tls.crt": leaf.certificatePem,
      "tls.key": leaf.keyPem,
    });
    if (current) {
      await kube.apply(mounted, fieldManager);
      return { plan, ca: caSecret, mounted, renewed: true };
    }
    if (await createOnce(kube, mounted)) return { plan, ca: caSecret, mounted };
    // Another delivery issued it first: use theirs when it is good.
    current = await kube.get<SecretObject>(secretKey(cluster, plan.secretName));
  }
  return { plan, ca: caSecret, ...(current ? { mounted: current } : {}) };
}
