// The addresses of one run's real node, derived from the run's reserved
// 127.A.B block (subnet.ts) so that runs side by side never share one:
//   pods       10.A.B.0/25 on the node's bridge (gateway 10.A.B.1)
//   services   10.A.B.128/25 (the `kubernetes` Service is 10.A.B.129)
//   link       a /30 in 100.64.0.0/10 between the host and the node's network
//              namespace: the host end is where the API server is advertised,
//              the node end is the node's InternalIP and its DNS server.
export interface NodeAddresses {
  podCidr: string;
  podGateway: string;
  podRangeStart: string;
  podRangeEnd: string;
  serviceRange: string;
  kubernetesServiceIp: string;
  hostLinkIp: string;
  nodeIp: string;
  linkPrefixLength: 30;
  /** Everything the host routes to the node: pods and services. */
  routedToNode: string;
}

/** From a reserved prefix "127.A.B" (A 100–199, B 0–255). */
export function nodeAddresses(reservedPrefix: string): NodeAddresses {
  const [, a, b] = reservedPrefix.split(".").map(Number) as [number, number, number];
  if (!(a >= 100 && a <= 199 && b >= 0 && b <= 255)) throw new Error(`not a reserved prefix: ${reservedPrefix}`);
  const net = `10.${a}.${b}`;
  const link = 4 * ((a - 100) * 256 + b); // offset of the /30 inside 100.64.0.0/10
  const linkAddress = (host: number): string =>
    `100.${64 + Math.floor((link + host) / 65536)}.${Math.floor((link + host) / 256) % 256}.${(link + host) % 256}`;
  return {
    podCidr: `${net}.0/25`,
    podGateway: `${net}.1`,
    podRangeStart: `${net}.2`,
    podRangeEnd: `${net}.126`,
    serviceRange: `${net}.128/25`,
    kubernetesServiceIp: `${net}.129`,
    hostLinkIp: linkAddress(1),
    nodeIp: linkAddress(2),
    linkPrefixLength: 30,
    routedToNode: `${net}.0/24`,
  };
}
