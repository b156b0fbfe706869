// Story 1 on real Knative Eventing: the operator's own manifests installed on
// a control plane running Knative's controllers, webhook, ApiServerSource
// adapters, PingSource adapter, Broker ingress/filter and in-memory channel
// (built from knative.dev/eventing), with every function running as its own
// pod. Nothing here calls a function: every event goes ApiServerSource →
// Broker → Trigger → function pod over HTTP, and PingSources are Knative's.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { startControlPlane, stopControlPlane } from "../../harness/control-plane.ts";
import type { HarnessState } from "../../harness/state.ts";
import { waitFor } from "../cluster/support/natscluster.ts";
import { installOperatorOnEventing } from "./support/operator-on-eventing.ts";

const run = promisify(execFile);
let harness: HarnessState | undefined;

async function kubectl(...args: string[]): Promise<string> {
  if (harness === undefined) throw new Error("no control plane");
  const { stdout } = await run(join(harness.binDir, "kubectl"), [`--kubeconfig=${harness.kubeconfig}`, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

async function apply(yaml: string): Promise<void> {
  if (harness === undefined) throw new Error("no control plane");
  const file = join(harness.workDir, `apply-${Date.now()}.yaml`);
  await writeFile(file, yaml);
  await kubectl("apply", "--server-side", "-f", file);
}

/** `type=status/reason` for each condition of the object, as `kubectl get -o jsonpath` shows them. */
async function conditions(resource: string, namespace: string, name: string): Promise<Record<string, string>> {
  const out = await kubectl(
    "get",
    resource,
    name,
    "-n",
    namespace,
    "-o",
    'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}{"\\n"}{end}',
  );
  return Object.fromEntries(
    out
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

const STORY_1 = `
apiVersion: v1
kind: Namespace
metadata: { name: demo }
---
apiVersion: cluster.nats-operator.io/v1beta1
kind: NatsCluster
metadata: { name: demo, namespace: demo }
spec:
  version: "2.15.2"
  replicas: 3
  resources: { requests: { cpu: 100m, memory: 256Mi }, limits: { memory: 256Mi } }
  jetstream:
    volumeClaimTemplate: { spec: { storageClassName: standard, resources: { requests: { storage: 20Gi } } } }
---
apiVersion: nats-operator.io/v1beta1
kind: NatsConnection
metadata: { name: demo, namespace: demo }
spec:
  servers: ["nats://demo.demo.svc:4222"]
---
apiVersion: jetstream.nats-operator.io/v1beta1
kind: NatsStream
metadata: { name: orders, namespace: demo }
spec:
  connectionRef: { name: demo }
  name: ORDERS
  subjects: ["orders.>"]
  replicas: 3
`;

// Story 1's objects exist before the operator is installed: Knative's ApiServerSource sends
// nothing for objects that predate it, so the resync (every minute here) is what finds them.
beforeAll(async () => {
  harness = await startControlPlane({ profile: "knative", log: () => undefined });
  await apply(STORY_1);
  await installOperatorOnEventing(join(harness.binDir, "kubectl"), harness.kubeconfig, harness.workDir, "* * * * *");
}, 600_000);

afterAll(async () => {
  if (harness !== undefined) await stopControlPlane(harness);
}, 120_000);

describe("the operator on real Knative Eventing", () => {
  it("has its Broker, its five Triggers and its three ApiServerSources Ready", async () => {
    await kubectl(
      "wait",
      "--for=condition=Ready",
      "brokers,triggers,apiserversources",
      "--all",
      "-n",
      "nats-operator",
      "--timeout=180s",
    );
    const names = await kubectl("get", "triggers", "-n", "nats-operator", "-o", "jsonpath={.items[*].metadata.name}");
    expect(names.split(" ").sort()).toEqual([
      "balance",
      "render-cluster",
      "sign-account",
      "step-rollout",
      "sync-stream",
    ]);
  }, 200_000);

  it("brings story 1's NatsCluster, applied before the operator, to Ready and Settled", async () => {
    await waitFor(
      "demo Ready and Settled",
      async () => {
        const c = await conditions("natscluster", "demo", "demo");
        return c["Ready"]?.startsWith("True/") && c["Settled"] === "True/AllGroupsCurrent" ? c : undefined;
      },
      300_000,
      2_000,
    );
  }, 320_000);

  it("syncs story 1's NatsStream through its NatsConnection", async () => {
    const synced = await waitFor(
      "orders Synced",
      async () => {
        const c = await conditions("natsstream", "demo", "orders");
        return c["Synced"] === "True/MatchesSpec" ? c : undefined;
      },
      180_000,
      2_000,
    );
    expect(synced["Ready"]).toBe("True/Synced");
  }, 200_000);

  it("records an event a function refuses for good as a Warning EventDropped on its object", async () => {
    // A subscriber that answers 400 (a path that hosts no function), which the Broker never retries.
    await apply(`
apiVersion: eventing.knative.dev/v1
kind: Trigger
metadata: { name: refuses-audit, namespace: nats-operator }
spec:
  broker: nats-operator
  filters: [{ exact: { kind: NatsStream, name: audit } }]
  subscriber: { uri: "http://sync-stream.nats-operator.svc.cluster.local/no-such-function" }
  delivery:
    retry: 0
    deadLetterSink: { ref: { apiVersion: v1, kind: Service, name: nats-operator-dead-letter } }
`);
    await kubectl("wait", "--for=condition=Ready", "trigger/refuses-audit", "-n", "nats-operator", "--timeout=60s");
    await apply(`
apiVersion: jetstream.nats-operator.io/v1beta1
kind: NatsStream
metadata: { name: audit, namespace: demo }
spec:
  connectionRef: { name: demo }
  name: AUDIT
  subjects: ["audit.>"]
`);
    const note = await waitFor(
      "EventDropped on NatsStream audit",
      async () => {
        const out = await kubectl(
          "get",
          "events.events.k8s.io",
          "-n",
          "demo",
          "-o",
          'jsonpath={range .items[?(@.reason=="EventDropped")]}{.regarding.kind}/{.regarding.name}: {.note}{"\\n"}{end}',
        );
        return out.split("\n").find((l) => l.startsWith("NatsStream/audit: "));
      },
      60_000,
      1_000,
    );
    expect(note).toMatch(/answered 400\); the next resync reconciles the object$/);
  }, 120_000);

  it("rolls a spec change out one server at a time, each server replaced once", async () => {
    const podRevisions = async (): Promise<Map<string, string>> => {
      const out = await kubectl(
        "get",
        "pods",
        "-n",
        "demo",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name}={.metadata.uid}/{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
      );
      return new Map(
        out
          .split("\n")
          .filter((l) => l.includes("="))
          .map((l) => [l.split("=")[0] ?? "", l.split("=")[1] ?? ""]),
      );
    };
    const before = await podRevisions();
    await kubectl(
      "patch",
      "natscluster",
      "demo",
      "-n",
      "demo",
      "--type",
      "merge",
      "-p",
      '{"spec":{"resources":{"requests":{"memory":"300Mi"},"limits":{"memory":"300Mi"}}}}',
    );
    let mostDown = 0;
    const uids = new Map<string, Set<string>>();
    await waitFor(
      "every server replaced and the cluster at rest",
      async () => {
        const now = await podRevisions();
        const down = 3 - [...now.values()].filter((v) => v.endsWith("/True")).length;
        mostDown = Math.max(mostDown, down);
        for (const [name, v] of now) {
          const seen = uids.get(name) ?? new Set<string>();
          seen.add(v.split("/")[0] ?? "");
          uids.set(name, seen);
        }
        const replaced = [...before].every(
          ([name, v]) => now.has(name) && now.get(name)?.split("/")[0] !== v.split("/")[0],
        );
        const c = await conditions("natscluster", "demo", "demo");
        return replaced && c["Progressing"] === "False/UpToDate" && c["Settled"] === "True/AllGroupsCurrent";
      },
      420_000,
      1_000,
    );
    expect(mostDown).toBeLessThanOrEqual(1);
    // The original pod and its one replacement: no server restarted twice for one revision.
    expect([...uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);
});
