// The gateway and leafnode listeners (C43, C46–C48, C51): whether the gateway's member list and
// TLS, and a leaf's resolver, may be rendered, and what the listeners' TLS Secrets hold.
// render-cluster and step-rollout judge the same way, so neither renders nor rolls out what the
// other holds back.
import type { Kube, KubeObject } from "../../shared/kube/index.ts";
import type { Cluster } from "./cluster.ts";
import { chooseResolver } from "./plan/auth-config.ts";
import { gatewayTlsSecretName } from "./plan/gateway.ts";
import { leafnodesTlsSecretName } from "./plan/leafnodes.ts";

/** The env var that lets a gateway run without TLS (`--allow-gateway-without-tls`). */
export const ALLOW_GATEWAY_WITHOUT_TLS_ENV = "NATS_OPERATOR_ALLOW_GATEWAY_WITHOUT_TLS";

/** Whether the operator was started to allow gateways in clear. */
export function allowGatewayWithoutTls(env: Record<string, string | undefined> = process.env): boolean {
  return env[ALLOW_GATEWAY_WITHOUT_TLS_ENV] === "true";
}

/** Data (base64 values) of the listener TLS Secrets, where the spec names one and it exists. */
export interface ListenerSecrets {
  gateway?: Record<string, string>;
  leafnodes?: Record<string, string>;
}

/**
 * What the listeners come to: refused (nothing is rendered), waited for (no server is created or
 * changed), or ready.
 */
export type ListenerVerdict =
  | { kind: "ready" }
  | { kind: "refused"; reason: "GatewayWithoutTLS" | "UnsupportedSpec"; message: string }
  | { kind: "waiting"; reason: "GatewayCertificateNotReady" | "LeafnodesCertificateNotReady"; message: string };

const holds = (data: Record<string, string> | undefined, keys: readonly string[]) =>
  keys.every((key) => Boolean(data?.[key]));

/** Judges the listeners (pure); `allowWithoutTls` is the operator's allow-gateway-without-tls. */
export function judgeListeners(cluster: Cluster, secrets: ListenerSecrets, allowWithoutTls: boolean): ListenerVerdict {
  const { gateway, leafnodes } = cluster.spec;
  const own = cluster.metadata.name;
  // With Explicit discovery the list is the whole supercluster, the same on every member; one
  // that leaves this cluster out is some other member's list, or a typo in this one's name.
  if (gateway?.discovery === "Explicit" && !gateway.remotes.some((r) => r.name === own)) {
    return {
      kind: "refused",
      reason: "UnsupportedSpec",
      message:
        `spec.gateway.remotes does not list this cluster (${own}): with Explicit discovery it lists every member ` +
        `of the supercluster, this one included; add {name: ${own}, url: <the URL other members dial for it>}`,
    };
  }
  // A preload is stored only where the resolver's directory holds nothing newer, and a fetch never
  // replaces it (N5): on an emptyDir a restarted leaf would serve a stale preload for good.
  const remotes = cluster.spec.leafRemotes ?? [];
  const preloads =
    (cluster.spec.auth?.accountTrustRefs ?? []).length > 0 || remotes.some((r) => r.localAccountTrustRef !== undefined);
  if (
    remotes.length > 0 &&
    preloads &&
    chooseResolver(cluster) === "Full" &&
    !cluster.spec.jetstream?.volumeClaimTemplate
  ) {
    return {
      kind: "refused",
      reason: "UnsupportedSpec",
      message:
        "a leaf that preloads accounts runs its Full resolver on a persistent volume: set " +
        "jetstream.volumeClaimTemplate, or auth.resolver: Cache",
    };
  }
  if (gateway && !gateway.tls && !allowWithoutTls) {
    return {
      kind: "refused",
      reason: "GatewayWithoutTLS",
      message:
        "spec.gateway has no tls: gateway traffic would cross networks in clear; set gateway.tls.secretRef " +
        `(a Secret with tls.crt, tls.key and ca.crt), or run the operator with ${ALLOW_GATEWAY_WITHOUT_TLS_ENV}=true`,
    };
  }
  if (gateway?.tls) {
    const name = gatewayTlsSecretName(cluster) ?? "";
    // Without ca.crt nats-server would verify peers against the system roots (N12).
    if (!holds(secrets.gateway, ["tls.crt", "tls.key", "ca.crt"]))
      return {
        kind: "waiting",
        reason: "GatewayCertificateNotReady",
        message: `Secret ${name} does not hold tls.crt, tls.key and ca.crt yet (gateway peers are verified against ca.crt)`,
      };
  }
  if (leafnodes?.tls) {
    const name = leafnodesTlsSecretName(cluster) ?? "";
    if (!holds(secrets.leafnodes, ["tls.crt", "tls.key"]))
      return {
        kind: "waiting",
        reason: "LeafnodesCertificateNotReady",
        message: `Secret ${name} does not hold tls.crt and tls.key yet`,
      };
  }
  return { kind: "ready" };
}

type Secret = KubeObject & { data?: Record<string, string> };

/** Reads the listener TLS Secrets the spec names. */
export async function readListenerSecrets(kube: Kube, cluster: Cluster): Promise<ListenerSecrets> {
  const read = async (name: string | undefined) => {
    if (!name) return undefined;
    const secret = await kube.get<Secret>({
      apiVersion: "v1",
      kind: "Secret",
      namespace: cluster.metadata.namespace,
      name,
    });
    return secret?.data;
  };
  const [gateway, leafnodes] = await Promise.all([
    read(gatewayTlsSecretName(cluster)),
    read(leafnodesTlsSecretName(cluster)),
  ]);
  return { ...(gateway ? { gateway } : {}), ...(leafnodes ? { leafnodes } : {}) };
}
