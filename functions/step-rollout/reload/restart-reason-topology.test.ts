// Reload or restart for the gateway and leaf node changes, judged on configs as the plan renders
// them (internals 1.7): nats-server 2.15 reloads no gateway setting, but does add and remove leaf
// remotes; a renewed listener certificate changes only the revision the config reports.
import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import { type Cluster, planCluster, type ReadyLeafRemote } from "../../cluster/index.ts";
import { NO_RELOAD, restartReason } from "./restart-reason.ts";

const gateway = (remotes: string[]): NonNullable<Cluster["spec"]["gateway"]> => ({
  discovery: "Explicit",
  remotes: remotes.map((name) => ({ name, url: `tls://${name}.example:7222` })),
  tls: { secretRef: { name: "gw" } },
});
const remote = (name: string): ReadyLeafRemote => ({
  connectionNamespace: "edge",
  connectionName: name,
  urls: [`nats-leaf://${name}.example:7422`],
  creds: "creds",
});

function reasonFor(
  before: { cluster: Cluster; gatewayTls?: string; remotes?: ReadyLeafRemote[] },
  after: { cluster: Cluster; gatewayTls?: string; remotes?: ReadyLeafRemote[] },
): string {
  const plan = (p: typeof before) =>
    planCluster({
      cluster: p.cluster,
      routeTlsData: routeTlsData(),
      ...(p.gatewayTls ? { gatewayTlsData: routeTlsData(p.gatewayTls) } : {}),
      ...(p.remotes ? { leafRemotes: p.remotes } : {}),
    }).servers[0];
  const running = plan(before);
  const planned = plan(after);
  if (!running || !planned) throw new Error("no server planned");
  return restartReason(
    { specDigest: running.specDigest, runningVersion: "2.15.0", runningConfig: running.config },
    { specDigest: planned.specDigest, version: "2.15.0", config: planned.config },
  );
}

describe("reload or restart for gateways and leaf nodes", () => {
  it("restarts for a new gateway member", () => {
    const before = demoCluster({ gateway: gateway(["demo", "south"]) });
    const after = demoCluster({ gateway: gateway(["demo", "south", "west"]) });
    expect(reasonFor({ cluster: before, gatewayTls: "a" }, { cluster: after, gatewayTls: "a" })).toBe(
      "gateway.gateways is restart-only",
    );
  });

  it("reloads a renewed gateway certificate: only the reported revision changes", () => {
    const cluster = demoCluster({ gateway: gateway(["demo", "south"]) });
    expect(reasonFor({ cluster, gatewayTls: "a" }, { cluster, gatewayTls: "b" })).toBe(NO_RELOAD);
  });

  it("reloads a leaf remote added beside another, and restarts for the first one (its creds volume is new)", () => {
    const cluster = demoCluster({ leafRemotes: [{ connectionRef: { name: "a" } }, { connectionRef: { name: "b" } }] });
    expect(reasonFor({ cluster, remotes: [remote("a")] }, { cluster, remotes: [remote("a"), remote("b")] })).toBe(
      NO_RELOAD,
    );
    expect(reasonFor({ cluster, remotes: [] }, { cluster, remotes: [remote("a")] })).toBe(
      "the StatefulSet spec is restart-only",
    );
  });
});
