// The event path under faults, on real Knative Eventing. Every event reaches every function twice
// and out of order: a second Trigger per function delivers each event again through a proxy in
// this process that holds it back 0–500 ms, so a later event's first copy often overtakes it. And
// Knative's and our own pods are killed while work is in flight; each scenario must end where a
// clean run ends: the cluster at rest, a rollout with at most one server down and each server
// replaced once, streams Synced.
// Objects that existed before the operator was installed are covered by knative/story1-on-eventing.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { stringify } from "yaml";
import { operatorManifestsWithoutServing } from "../knative/support/operator-on-eventing.ts";
import {
  rollOut,
  startKnativeCluster,
  story1Cluster,
  stream,
  waitClusterAtRest,
  waitSynced,
  type KnativeCluster,
} from "../knative/support/knative-cluster.ts";

const NS = "chaos";
let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

/**
 * An HTTP proxy on the host that forwards each delivery to `/<service>` on to that Service's
 * cluster IP after a pseudo-random wait of 0–500 ms (the same sequence every run), passing the
 * answer back so the Broker retries what the function asks it to.
 */
async function startDelayingProxy(
  clusterIp: (service: string) => Promise<string>,
): Promise<http.Server & { delayed: number }> {
  let seed = 42;
  const nextDelay = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % 500;
  };
  const proxy = Object.assign(
    http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        proxy.delayed++;
        setTimeout(() => {
          void (async () => {
            const service = (req.url ?? "/").slice(1);
            const headers = Object.fromEntries(
              Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length" && k !== "connection"),
            ) as Record<string, string>;
            try {
              const answer = await fetch(`http://${await clusterIp(service)}/`, {
                method: "POST",
                headers,
                body: Buffer.concat(chunks),
              });
              res.writeHead(answer.status, Object.fromEntries(answer.headers));
              res.end(Buffer.from(await answer.arrayBuffer()));
            } catch {
              res.writeHead(503);
              res.end();
            }
          })();
        }, nextDelay());
      });
    }),
    { delayed: 0 },
  );
  await new Promise<void>((resolve) => proxy.listen(0, "0.0.0.0", resolve));
  return proxy;
}

/** A second Trigger for each function with the same filters, delivering through the proxy at `base`. */
async function delayedTriggers(base: string): Promise<string> {
  const triggers = (await operatorManifestsWithoutServing()).filter((m) => m.kind === "Trigger");
  return triggers
    .map((t) => {
      const spec = (t as unknown as { spec: { subscriber: { ref: { name: string } } } }).spec;
      return stringify({
        ...t,
        metadata: { ...t.metadata, name: `${t.metadata.name}-again` },
        spec: { ...spec, subscriber: { uri: `${base}/${spec.subscriber.ref.name}` } },
      });
    })
    .join("---\n");
}

let proxy: (http.Server & { delayed: number }) | undefined;

beforeAll(async () => {
  k = await startKnativeCluster({ serving: false });
  await k.installOperator();
  const { kubectl } = k;
  const clusterIps = new Map<string, string>();
  proxy = await startDelayingProxy(async (service) => {
    const known = clusterIps.get(service);
    if (known !== undefined) return known;
    const ip = await kubectl("get", "service", service, "-n", "nats-operator", "-o", "jsonpath={.spec.clusterIP}");
    clusterIps.set(service, ip);
    return ip;
  });
  // Pods reach the host at their gateway, the first address of the run's pod network.
  const gateway = `10${(k.harness.podSubnet ?? "").slice(3)}.1`;
  await k.apply(await delayedTriggers(`http://${gateway}:${(proxy.address() as AddressInfo).port}`));
  await k.kubectl("wait", "--for=condition=Ready", "triggers", "--all", "-n", "nats-operator", "--timeout=180s");
  await k.apply(story1Cluster(NS));
  await waitClusterAtRest(k, NS, 300_000);
}, 900_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  await k?.stop();
}, 120_000);

describe("with every event delivered twice, the second copy 0–500 ms late", () => {
  it("rolls a change out with at most one server down, each server replaced once", async () => {
    const watch = await rollOut(cluster(), NS, "300Mi", 420_000);
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
    // The late copies did reach the functions through the proxy.
    expect(proxy?.delayed).toBeGreaterThan(0);
  }, 450_000);

  it("finishes a rollout whose step-rollout pod is killed after the first server moved", async () => {
    const { kubectl } = cluster();
    const watch = await rollOut(cluster(), NS, "320Mi", 420_000, async () => {
      await kubectl(
        "delete",
        "pods",
        "-n",
        "nats-operator",
        "-l",
        "app.kubernetes.io/name=step-rollout",
        "--wait=false",
      );
    });
    expect(watch.mostDown).toBeLessThanOrEqual(1);
    expect([...watch.uids.values()].map((s) => s.size)).toEqual([2, 2, 2]);
  }, 450_000);

  it("syncs a stream created while the ApiServerSource adapter is being replaced", async () => {
    const { kubectl, apply } = cluster();
    await kubectl(
      "delete",
      "pods",
      "-n",
      "nats-operator",
      "-l",
      "eventing.knative.dev/sourceName=nats-operator-resources",
      "--wait=false",
    );
    await apply(stream(NS, "during-adapter-restart", "ADAPTER"));
    await waitSynced(cluster(), NS, "during-adapter-restart", 240_000);
  }, 260_000);

  it("syncs a stream created while the Broker's filter is down", async () => {
    const { kubectl, apply } = cluster();
    await kubectl(
      "delete",
      "pods",
      "-n",
      "knative-eventing",
      "-l",
      "eventing.knative.dev/brokerRole=filter",
      "--wait=false",
    );
    await apply(stream(NS, "during-filter-restart", "FILTER"));
    await waitSynced(cluster(), NS, "during-filter-restart", 240_000);
  }, 260_000);
});
