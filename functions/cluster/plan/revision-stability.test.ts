// A release that changes how clusters are rendered restarts every server whose revision or
// StatefulSet digest it moves. These tests make that visible: the digests of a set of fixture
// clusters are recorded in test/fixtures/cluster/revisions.json, and a change that moves one fails
// here until it is recorded (UPDATE_REVISIONS=1) and announced in CHANGELOG.md as a restart.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { demoCluster, routeTlsData } from "../../../test/fixtures/cluster/clusters.ts";
import { planCluster } from "./cluster-plan.ts";
import { canonicalJson } from "./revision.ts";

const RECORDED = new URL("../../../test/fixtures/cluster/revisions.json", import.meta.url);

/** The clusters whose rendering is held stable: the quickstart and the shapes most installs use. */
const FIXTURES = {
  quickstart: demoCluster(),
  "one server": demoCluster({ replicas: 1 }),
  "memory-only JetStream": demoCluster({ jetstream: {} }),
  "no JetStream": demoCluster({ jetstream: undefined }),
  "server tags and a pod template": demoCluster({
    serverTags: { az: "a" },
    podTemplate: {
      metadata: { labels: { team: "payments" } },
      spec: { tolerations: [{ key: "dedicated", operator: "Equal", value: "nats", effect: "NoSchedule" }] },
    },
  }),
  "no exporter": demoCluster({ exporter: { enabled: false } }),
};

interface Digests {
  revision: string;
  specDigests: string[];
  volumeDigests: string[];
}

function digestsOf(cluster: ReturnType<typeof demoCluster>): Digests {
  const plan = planCluster({ cluster, routeTlsData: routeTlsData(), operatorNamespace: "nats-operator" });
  return {
    revision: plan.revision,
    specDigests: plan.servers.map((s) => s.specDigest),
    volumeDigests: plan.servers.map((s) => s.volumeDigest),
  };
}

const rendered = Object.fromEntries(Object.entries(FIXTURES).map(([name, cluster]) => [name, digestsOf(cluster)]));

describe("revision stability across releases", () => {
  it("renders every fixture cluster with the digests recorded for it", () => {
    if (process.env["UPDATE_REVISIONS"] === "1") writeFileSync(RECORDED, `${JSON.stringify(rendered, null, 2)}\n`);
    const recorded = JSON.parse(readFileSync(RECORDED, "utf8")) as Record<string, Digests>;
    // A difference here restarts the servers of every such NatsCluster on upgrade.
    expect(rendered).toEqual(recorded);
  });

  it("takes digests over canonical JSON: the order keys are written in changes none", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: 3 } })).toBe(
      canonicalJson({ a: { c: 3, d: [2, { e: 0, f: 1 }] }, b: 1 }),
    );
  });

  it("keeps the order of lists, which nats-server and Kubernetes read in order", () => {
    expect(canonicalJson({ args: ["-c", "x"] })).not.toBe(canonicalJson({ args: ["x", "-c"] }));
  });
});
