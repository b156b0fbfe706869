import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import type { Cluster } from "../cluster.ts";
import { planCluster } from "./cluster-plan.ts";
import { deriveLimits } from "./limits.ts";
import { renderServerConfigObject } from "./server-config.ts";

type Gateway = NonNullable<Cluster["spec"]["gateway"]>;

const north = (gateway: Partial<Gateway> = {}) =>
  demoCluster(
    {
      gateway: {
        discovery: "Explicit",
        remotes: [
          { name: "demo", url: "tls://nats-demo.example:7222" },
          { name: "south", url: "tls://nats-south.example:7222" },
        ],
        tls: { secretRef: { name: "gw-certs" } },
        ...gateway,
      },
    },
    {},
  );

const configOf = (cluster: Cluster) =>
  renderServerConfigObject({
    cluster,
    ordinal: 0,
    limits: deriveLimits(cluster.spec),
    routeTls: true,
    clientTls: false,
  });

describe("the gateway block (C46, C48)", () => {
  it("joins under the NatsCluster's name, dials every member but itself, and refuses unknown gateways with Explicit discovery", () => {
    expect(configOf(north())["gateway"]).toEqual({
      name: "demo",
      listen: "0.0.0.0:7222",
      reject_unknown: true,
      gateways: [{ name: "south", urls: ["tls://nats-south.example:7222"] }],
      tls: {
        cert_file: "/etc/nats-gateway-tls/tls.crt",
        key_file: "/etc/nats-gateway-tls/tls.key",
        ca_file: "/etc/nats-gateway-tls/ca.crt",
        verify: true,
      },
    });
  });

  it("takes the remotes as seeds with Gossip discovery, so members it was not told of may join", () => {
    expect(configOf(north({ discovery: "Gossip" }))["gateway"]).toMatchObject({ reject_unknown: false });
  });

  it("advertises the address given, and renders no TLS when the operator allows a gateway in clear", () => {
    const { tls: _tls, ...clear } = north({ advertise: "nats-demo.example:7222" }).spec.gateway as Gateway;
    const gateway = configOf(demoCluster({ gateway: clear }))["gateway"];
    expect(gateway).toMatchObject({ advertise: "nats-demo.example:7222" });
    expect(gateway).not.toHaveProperty("tls");
  });

  it("comes between the routes and JetStream", () => {
    expect(Object.keys(configOf(north())).slice(-3)).toEqual(["cluster", "gateway", "jetstream"]);
  });

  it("renders no gateway without spec.gateway", () => {
    expect(configOf(demoCluster())).not.toHaveProperty("gateway");
  });
});

describe("what a gateway adds to the plan", () => {
  const plan = (cluster: Cluster, gatewayTlsData?: Record<string, string>) =>
    planCluster({ cluster, routeTlsData: routeTlsData(), ...(gatewayTlsData ? { gatewayTlsData } : {}) });
  const service = (cluster: Cluster, name: string) =>
    plan(cluster).shared.find((o) => o.kind === "Service" && o.metadata.name === name) as
      { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> } | undefined;

  it("mounts the gateway Secret and opens the gateway port on every server", () => {
    const sts = plan(north()).servers[0]?.statefulSet.spec.template.spec as {
      containers: { name: string; ports: { name: string }[]; volumeMounts: { name: string; mountPath: string }[] }[];
      volumes: { name: string; secret?: { secretName: string } }[];
    };
    const nats = sts.containers.find((c) => c.name === "nats");
    expect(nats?.ports.map((p) => p.name)).toContain("gateway");
    expect(nats?.volumeMounts).toContainEqual({
      name: "gateway-tls",
      mountPath: "/etc/nats-gateway-tls",
      readOnly: true,
    });
    expect(sts.volumes).toContainEqual({ name: "gateway-tls", secret: { secretName: "gw-certs" } });
  });

  it("renders <name>-gateway from the template, publishing servers that are not Ready yet", () => {
    const cluster = north({
      service: {
        type: "LoadBalancer",
        annotations: { "external-dns.alpha.kubernetes.io/hostname": "nats-demo.example" },
        loadBalancerSourceRanges: ["10.0.0.0/8"],
      },
    });
    const gateway = service(cluster, "demo-gateway");
    expect(gateway?.metadata.annotations).toEqual({ "external-dns.alpha.kubernetes.io/hostname": "nats-demo.example" });
    expect(gateway?.spec).toEqual({
      type: "LoadBalancer",
      publishNotReadyAddresses: true,
      selector: { "cluster.nats-operator.io/cluster": "demo" },
      ports: [{ name: "gateway", port: 7222, targetPort: "gateway", protocol: "TCP" }],
      loadBalancerSourceRanges: ["10.0.0.0/8"],
    });
    // No class is written when the template sets none, so one a webhook defaulted is kept.
    expect(gateway?.spec).not.toHaveProperty("loadBalancerClass");
  });

  it("retires <name>-gateway when gateway.service goes, and adds the gateway port to the headless Service", () => {
    expect(service(north(), "demo-gateway")).toBeUndefined();
    expect(plan(north()).retired).toContainEqual({ apiVersion: "v1", kind: "Service", name: "demo-gateway" });
    const ports = (service(north(), "demo-headless")?.spec["ports"] as { name: string }[]).map((p) => p.name);
    expect(ports).toContain("gateway");
  });

  it("admits the gateway port from anywhere in the NetworkPolicy", () => {
    const policy = plan(north()).shared.find((o) => o.kind === "NetworkPolicy") as unknown as {
      spec: { ingress: { ports: { port: number }[]; from?: unknown }[] };
    };
    const open = policy.spec.ingress.find((rule) => rule.from === undefined);
    expect(open?.ports.map((p) => p.port)).toEqual([4222, 7222]);
  });

  it("moves the revision when the gateway certificate is renewed (the TLS digest), and shows the advertised address", () => {
    const before = plan(north({ advertise: "nats-demo.example:7222" }), routeTlsData("gw1"));
    const after = plan(north({ advertise: "nats-demo.example:7222" }), routeTlsData("gw2"));
    expect(after.revision).not.toBe(before.revision);
    // Only server_metadata differs between the two configs: a renewal is applied by reload.
    const strip = (config: string) => config.replace(/"config_revision": "[0-9a-f]+"/, "");
    expect(strip(after.servers[0]?.config ?? "")).toBe(strip(before.servers[0]?.config ?? ""));
    expect(before.status.endpoints.gateway).toBe("nats-demo.example:7222");
  });
});
