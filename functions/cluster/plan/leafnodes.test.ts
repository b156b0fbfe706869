import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import type { Cluster } from "../cluster.ts";
import { planCluster } from "./cluster-plan.ts";
import type { ReadyLeafRemote } from "./leafnodes.ts";

const HUB_CREDS = "-----BEGIN NATS USER JWT-----\neyJhbGciOi.hub.user\n------END NATS USER JWT------\n";

const hubRemote = (extra: Partial<ReadyLeafRemote> = {}): ReadyLeafRemote => ({
  connectionNamespace: "edge",
  connectionName: "hub",
  urls: ["tls://leaf.hub.example:7422"],
  creds: HUB_CREDS,
  ...extra,
});

const plan = (cluster: Cluster, leafRemotes: ReadyLeafRemote[] = [], leafnodesTlsData?: Record<string, string>) =>
  planCluster({
    cluster,
    routeTlsData: routeTlsData(),
    leafRemotes,
    ...(leafnodesTlsData ? { leafnodesTlsData } : {}),
  });
const configOf = (p: ReturnType<typeof plan>) => JSON.parse(p.servers[0]?.config ?? "{}") as Record<string, unknown>;
const podSpec = (p: ReturnType<typeof plan>) =>
  p.servers[0]?.statefulSet.spec.template.spec as {
    containers: { name: string; ports: { name: string }[] }[];
    volumes: { name: string; projected?: { sources: Record<string, unknown>[] } }[];
  };

describe("the leafnode listener (C51)", () => {
  const hub = (leafnodes: NonNullable<Cluster["spec"]["leafnodes"]> = {}) =>
    demoCluster({ auth: { trustRef: { name: "corp" } }, leafnodes });

  it("listens on 7422, advertises the address given, and serves TLS without asking leaf nodes for a certificate", () => {
    const p = plan(hub({ advertise: "leaf.hub.example:7422", tls: { secretRef: { name: "leaf-certs" } } }));
    expect(configOf(p)["leafnodes"]).toEqual({
      listen: "0.0.0.0:7422",
      advertise: "leaf.hub.example:7422",
      tls: { cert_file: "/etc/nats-leafnodes-tls/tls.crt", key_file: "/etc/nats-leafnodes-tls/tls.key" },
    });
    expect(
      podSpec(p)
        .containers.find((c) => c.name === "nats")
        ?.ports.map((c) => c.name),
    ).toContain("leafnodes");
  });

  it("renders <name>-leafnodes from its Service template, and nothing of that name without one", () => {
    const service = (p: ReturnType<typeof plan>) => p.shared.find((o) => o.metadata.name === "demo-leafnodes");
    expect(service(plan(hub({ service: { type: "NodePort" } })))).toMatchObject({
      kind: "Service",
      spec: { type: "NodePort", ports: [{ name: "leafnodes", port: 7422, targetPort: "leafnodes", protocol: "TCP" }] },
    });
    expect(service(plan(hub()))).toBeUndefined();
    expect(plan(hub()).retired).toContainEqual({ apiVersion: "v1", kind: "Service", name: "demo-leafnodes" });
  });

  it("moves the revision when the listener's certificate is renewed", () => {
    const tls = hub({ tls: { secretRef: { name: "leaf-certs" } } });
    expect(plan(tls, [], routeTlsData("l1")).revision).not.toBe(plan(tls, [], routeTlsData("l2")).revision);
  });
});

describe("leaf remotes (C52, C53)", () => {
  it("dials each hub with the creds and CA projected beside the config, bound to the account asked for", () => {
    const p = plan(demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }), [
      hubRemote({ ca: "-----BEGIN CERTIFICATE-----", account: "ASYSTEM" }),
    ]);
    expect(configOf(p)["leafnodes"]).toEqual({
      remotes: [
        {
          urls: ["tls://leaf.hub.example:7422"],
          credentials: "/etc/nats-config/edge_hub.creds",
          account: "ASYSTEM",
          tls: { ca_file: "/etc/nats-config/edge_hub.ca.crt" },
        },
      ],
    });
  });

  it("binds the global account when no local account is named", () => {
    const p = plan(demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }), [hubRemote()]);
    expect(configOf(p)["leafnodes"]).toEqual({
      remotes: [{ urls: ["tls://leaf.hub.example:7422"], credentials: "/etc/nats-config/edge_hub.creds" }],
    });
  });

  it("copies the creds into <name>-leaf-remotes, projected in the config volume so both files change together", () => {
    const p = plan(demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }), [hubRemote()]);
    const secret = p.shared.find((o) => o.kind === "Secret") as unknown as {
      metadata: { name: string };
      data: Record<string, string>;
    };
    expect(secret.metadata.name).toBe("demo-leaf-remotes");
    expect(Buffer.from(secret.data["edge_hub.creds"] ?? "", "base64").toString()).toBe(HUB_CREDS);
    expect(podSpec(p).volumes.find((v) => v.name === "config")?.projected?.sources).toEqual([
      { configMap: { name: "demo-0-config", items: [{ key: "nats.conf", path: "nats.conf" }] } },
      { secret: { name: "demo-leaf-remotes" } },
    ]);
  });

  it("renders no leafnodes block, and retires the creds Secret, once no remote is left", () => {
    const p = plan(demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }), []);
    expect(configOf(p)).not.toHaveProperty("leafnodes");
    expect(p.retired).toContainEqual({ apiVersion: "v1", kind: "Secret", name: "demo-leaf-remotes" });
  });

  it("preloads the account a remote binds by localAccountTrustRef beside the system account", () => {
    const cluster = demoCluster({
      auth: { trustRef: { name: "corp" } },
      leafRemotes: [{ connectionRef: { name: "hub" }, localAccountTrustRef: { name: "sensors" } }],
    });
    const trust = {
      kind: "ready" as const,
      operatorJWT: "eyJoperator",
      signers: ["OCORP"],
      systemAccount: "ASYS",
      systemAccountJWT: "eyJsys",
    };
    const p = planCluster({
      cluster,
      routeTlsData: routeTlsData(),
      trust,
      leafRemotes: [hubRemote({ account: "ASENSORS", accountJwt: "eyJsensors" })],
    });
    const config = configOf(p);
    expect(config["resolver_preload"]).toEqual({ ASYS: "eyJsys", ASENSORS: "eyJsensors" });
    expect((config["leafnodes"] as { remotes: { account?: string }[] }).remotes[0]?.account).toBe("ASENSORS");
  });

  it("comes after JetStream", () => {
    const p = plan(demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }), [hubRemote()]);
    expect(Object.keys(configOf(p)).slice(-2)).toEqual(["jetstream", "leafnodes"]);
  });
});
