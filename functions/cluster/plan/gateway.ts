// The gateway block of a server's config (C46, C48): how a NatsCluster joins a supercluster
// under its own name.
import type { Cluster as NatsCluster } from "../cluster.ts";
import { PORTS } from "../names.ts";
import { POD_PATHS } from "./paths.ts";

/** The Secret holding the gateway certificate: the named one, or `<name>-gateway-tls`. */
export function gatewayTlsSecretName(cluster: NatsCluster): string | undefined {
  const tls = cluster.spec.gateway?.tls;
  if (!tls) return undefined;
  return tls.secretRef?.name ?? `${cluster.metadata.name}-gateway-tls`;
}

/**
 * Whether the servers join the JetStream meta group of a supercluster: JetStream without a domain
 * of its own and a gateway to another cluster. Such a server must start without JetStream state,
 * or it brings a meta group of its own and the supercluster's splits.
 */
export function joinsSuperclusterMetaGroup(cluster: NatsCluster): boolean {
  const { jetstream, gateway } = cluster.spec;
  if (!jetstream || jetstream.domain) return false;
  return (gateway?.remotes ?? []).some((r) => r.name !== cluster.metadata.name);
}

/**
 * The `gateway` block, or undefined without `spec.gateway`. Every remote but this cluster's own
 * entry is dialled. With Explicit discovery the remotes are the whole supercluster, so a gateway
 * nobody listed is refused; with Gossip they are seeds and the others are learnt from them.
 */
export function renderGateway(cluster: NatsCluster): Record<string, unknown> | undefined {
  const gateway = cluster.spec.gateway;
  if (!gateway) return undefined;
  const name = cluster.metadata.name;
  const block: Record<string, unknown> = { name, listen: `0.0.0.0:${PORTS.gateway}` };
  if (gateway.advertise) block["advertise"] = gateway.advertise;
  block["reject_unknown"] = gateway.discovery !== "Gossip";
  block["gateways"] = gateway.remotes.filter((r) => r.name !== name).map((r) => ({ name: r.name, urls: [r.url] }));
  if (gateway.tls) {
    // The CA is the private one the Secret carries: without ca_file nats-server would verify
    // peers against the system roots, and any publicly signed certificate could join (N12).
    block["tls"] = {
      cert_file: `${POD_PATHS.gatewayTlsDir}/tls.crt`,
      key_file: `${POD_PATHS.gatewayTlsDir}/tls.key`,
      ca_file: `${POD_PATHS.gatewayTlsDir}/ca.crt`,
      verify: true,
    };
  }
  return block;
}
