// The local kubelet's Knative profile decisions, tested on their own: which
// program an image runs as, and the names Services get in the hosts file.
import { describe, expect, it } from "@jest/globals";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1Pod, V1Service } from "@kubernetes/client-node";
import { workloadOf } from "../../harness/kubelet/workloads.ts";
import { hostsEntries } from "../../harness/kubelet/dns.ts";
import { nodeProgram } from "../../harness/kubelet/pod.ts";

describe("which program an image runs as", () => {
  it("runs a built Knative command for its ko:// or registry image, and simulates one that is not built", async () => {
    const bin = await mkdtemp(join(tmpdir(), "knative-bin-"));
    await writeFile(join(bin, "broker-filter"), "");
    const images = { knativeBin: bin, operatorCheckout: "/repo" };
    expect(workloadOf({ name: "f", image: "ko://knative.dev/eventing/cmd/broker/filter" }, images)).toEqual({
      kind: "binary",
      path: join(bin, "broker-filter"),
    });
    expect(
      workloadOf(
        { name: "f", image: "gcr.io/knative-releases/knative.dev/eventing/cmd/broker/filter@sha256:ab" },
        images,
      ),
    ).toEqual({ kind: "binary", path: join(bin, "broker-filter") });
    expect(workloadOf({ name: "j", image: "ko://knative.dev/eventing/cmd/jobsink" }, images)).toEqual({
      kind: "simulated",
    });
  });

  it("runs Knative Serving's commands, the queue-proxy sidecar among them, and Traefik from the Serving build", async () => {
    const eventing = await mkdtemp(join(tmpdir(), "knative-bin-"));
    const serving = await mkdtemp(join(tmpdir(), "serving-bin-"));
    await writeFile(join(serving, "queue"), "");
    await writeFile(join(serving, "controller"), "");
    const images = { knativeBin: eventing, servingBin: serving, operatorCheckout: "/repo" };
    expect(workloadOf({ name: "queue-proxy", image: "ko://knative.dev/serving/cmd/queue" }, images)).toEqual({
      kind: "binary",
      path: join(serving, "queue"),
    });
    expect(
      workloadOf({ name: "c", image: "gcr.io/knative-releases/knative.dev/serving/cmd/controller@sha256:ab" }, images),
    ).toEqual({ kind: "binary", path: join(serving, "controller") });
    expect(workloadOf({ name: "traefik", image: "traefik:v3.6.12" }, images)).toEqual({
      kind: "binary",
      path: join(serving, "traefik"),
    });
    expect(workloadOf({ name: "q", image: "ko://knative.dev/serving/cmd/queue" }, { knativeBin: eventing })).toEqual({
      kind: "simulated",
    });
  });

  it("runs the operator's image from the checkout, and nats images as nats-server", () => {
    const images = { operatorCheckout: "/repo" };
    expect(workloadOf({ name: "user-container", image: "ghcr.io/nats-operator/nats-operator:1.0" }, images)).toEqual({
      kind: "node",
      script: "/repo/bin/nats-operator.ts",
    });
    expect(workloadOf({ name: "nats", image: "nats:2.15.2" }, images)).toEqual({ kind: "nats" });
  });

  it("simulates everything but nats outside the Knative profile", () => {
    expect(workloadOf({ name: "x", image: "ko://knative.dev/eventing/cmd/controller" }, {})).toEqual({
      kind: "simulated",
    });
    expect(workloadOf({ name: "x", image: "ghcr.io/nats-operator/nats-operator:1.0" }, {})).toEqual({
      kind: "simulated",
    });
  });
});

describe("what node runs for the operator's image", () => {
  const entry = "/repo/bin/nats-operator.ts";
  it("runs the checkout's entry point with the container's args, serve by default", () => {
    expect(nodeProgram([], [], entry)).toEqual([entry, "serve"]);
    expect(nodeProgram(["/nodejs/bin/node", "dist/nats-operator/nats-operator.mjs"], ["replay", "x"], entry)).toEqual([
      entry,
      "replay",
      "x",
    ]);
  });

  it("runs a container's own node program (helm test's inline script) as written", () => {
    expect(nodeProgram(["/nodejs/bin/node", "--input-type=module", "-e"], ["console.log(1)"], entry)).toEqual([
      "--input-type=module",
      "-e",
      "console.log(1)",
    ]);
  });
});

describe("Service names with the service proxy", () => {
  const pod = (name: string, labels: Record<string, string>): V1Pod => ({
    metadata: { name, namespace: "knative-eventing", labels },
  });
  const dispatcher: V1Service = {
    metadata: { name: "imc-dispatcher", namespace: "knative-eventing" },
    spec: { clusterIP: "10.1.2.140", selector: { app: "dispatcher" } },
  };
  const channel: V1Service = {
    metadata: { name: "default-kne-trigger-kn-channel", namespace: "demo" },
    spec: { type: "ExternalName", externalName: "imc-dispatcher.knative-eventing.svc.cluster.local" },
  };
  const pods = [{ pod: pod("d-1", { app: "dispatcher" }), ip: "10.1.2.5", ready: true }];

  it("resolves a ClusterIP Service to its cluster IP, as in a cluster", () => {
    const entries = hostsEntries(pods, [dispatcher], true);
    expect(entries.get("10.1.2.140")).toContain("imc-dispatcher.knative-eventing.svc.cluster.local");
    expect(entries.has("10.1.2.5")).toBe(false);
  });

  it("resolves an ExternalName Service where its target resolves", () => {
    const entries = hostsEntries(pods, [dispatcher, channel], true);
    expect(entries.get("10.1.2.140")).toContain("default-kne-trigger-kn-channel.demo.svc.cluster.local");
  });

  it("keeps resolving ClusterIP Services to pod addresses without the proxy", () => {
    expect(hostsEntries(pods, [dispatcher]).get("10.1.2.5")).toContain("imc-dispatcher.knative-eventing.svc");
  });
});
