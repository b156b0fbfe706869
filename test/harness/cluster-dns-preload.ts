// `node --import <this file>`: a process the tests start (`nats-operator run` beside a second
// control plane) resolves in-cluster names through the cluster's DNS server, as the test process
// does on the real node (cluster-dns.ts). The server comes from NATS_OPERATOR_CLUSTER_DNS.
import { installClusterDnsServer } from "./cluster-dns.ts";

const server = process.env["NATS_OPERATOR_CLUSTER_DNS"];
if (server !== undefined && server !== "") installClusterDnsServer(server);
