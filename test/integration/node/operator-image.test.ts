// harness: real node
// The operator image as a platform team runs it: built from the project's own Dockerfile
// (test/infra/build-image.sh: buildah on the two bases made here, cached by content), imported
// into the real node's containerd under the name the chart deploys, and run as a function's pod
// with the chart's security context and memory limit in a namespace enforcing the restricted Pod
// Security Standard. What a user sees: the pod Ready, its start line in `kubectl logs`, the
// health endpoints answering through a Service, a container that runs as 65532 with no shell
// on a read-only root filesystem, and the chart's NetworkPolicy for the functions enforced.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { ensureOperatorImage } from "../../harness/binaries.ts";
import { importImage } from "../../harness/node/import-image.ts";
import { connectFromContainer } from "../../harness/node/pod-network.ts";
import { readState, type HarnessState } from "../../harness/state.ts";
import { waitFor } from "../../harness/wait.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startProbePod } from "../support/probe-pod.ts";
import type { KubeObject } from "../../../shared/kube/index.ts";

const run = promisify(execFile);

interface Pod extends KubeObject {
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; image: string; containerID?: string; ready: boolean; restartCount: number }[];
  };
}
interface Service extends KubeObject {
  spec?: { clusterIP?: string };
}

const FUNCTION = "render-cluster";
let env: Environment;
let state: HarnessState;
let namespace: string;
let image: { archive: string; name: string };
let imported: string[];

const kubectl = async (...args: string[]): Promise<string> => {
  const bin = process.env["NATS_OPERATOR_HARNESS_BIN"];
  if (bin === undefined) throw new Error("NATS_OPERATOR_HARNESS_BIN is not set: run through the harness");
  return (await run(join(bin, "kubectl"), ["-n", namespace, ...args], { timeout: 60_000 })).stdout;
};

/** The function's container as knative/services.yaml and the chart define it. */
function functionPod(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    // serving.knative.dev/service: what Knative Serving labels a revision's pods with, and what the
    // chart's NetworkPolicy selects the functions by.
    metadata: { name, namespace, labels: { app: name, "serving.knative.dev/service": name } },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "function",
          image: image.name,
          imagePullPolicy: "IfNotPresent",
          env: [{ name: "FUNCTIONS", value: name }],
          ports: [{ name: "http", containerPort: 8080 }],
          readinessProbe: { httpGet: { path: "/health/readiness", port: 8080 } },
          livenessProbe: { httpGet: { path: "/health/liveness", port: 8080 } },
          resources: { requests: { cpu: "50m", memory: "96Mi" }, limits: { memory: "256Mi" } },
          securityContext: {
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          },
        },
      ],
    },
  } as KubeObject;
}

beforeAll(async () => {
  env = await startEnvironment();
  const stateFile = process.env["NATS_OPERATOR_HARNESS_STATE"];
  const found = stateFile === undefined ? undefined : await readState(stateFile);
  if (found === undefined)
    throw new Error("NATS_OPERATOR_HARNESS_STATE names no harness state: run through the harness");
  state = found;
  // Cold: the bases (about 1 min) and `buildah bud` (about 2 min); warm: a cache hit.
  image = await ensureOperatorImage((line) => process.stderr.write(`${line}\n`));
  imported = await importImage(state, image.archive);
  namespace = await env.namespace("operator-image");
  await env.kube.patch(
    { apiVersion: "v1", kind: "Namespace", namespace: "", name: namespace },
    { metadata: { labels: { "pod-security.kubernetes.io/enforce": "restricted" } } },
    "merge",
  );
  await env.kube.create(functionPod(FUNCTION));
  await env.kube.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: FUNCTION, namespace },
    spec: { selector: { app: FUNCTION }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  } as KubeObject);
  await waitFor(
    "the function's pod to be Ready",
    async () => {
      const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: FUNCTION });
      return pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    },
    { timeoutMs: 120_000 },
  );
}, 20 * 60_000);

const KNATIVE_EVENTING = "knative-eventing";

afterAll(async () => {
  await env?.transport.request("DELETE", `/api/v1/namespaces/${KNATIVE_EVENTING}`).catch(() => undefined);
  await env?.stop();
}, 120_000);

describe("the operator image built from the Dockerfile", () => {
  it("is on the node under the name the chart deploys by default", () => {
    expect(image.name).toBe("ghcr.io/nats-operator/nats-operator:0.1.0");
    expect(imported).toContain(image.name);
  });

  it("runs a function's pod under the restricted Pod Security Standard, Ready in containerd", async () => {
    const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: FUNCTION });
    expect(
      pod?.status?.containerStatuses?.map((c) => [
        c.name,
        c.image,
        c.ready,
        c.restartCount,
        c.containerID?.split("://")[0],
      ]),
    ).toEqual([["function", image.name, true, 0, "containerd"]]);
  });

  it("shows the function's start line in kubectl logs", async () => {
    const lines = (await kubectl("logs", FUNCTION))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "info",
        msg: "serving CloudEvents",
        port: 8080,
        functions: [FUNCTION],
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      }),
    );
  });

  it("answers its health and readiness endpoints through a Service", async () => {
    const service = await env.kube.get<Service>({ apiVersion: "v1", kind: "Service", namespace, name: FUNCTION });
    const answer = async (path: string) =>
      waitFor(
        `${path} through the Service`,
        async () => {
          const response = await fetch(`http://${service?.spec?.clusterIP ?? ""}${path}`);
          return { status: response.status, body: (await response.json()) as unknown };
        },
        { timeoutMs: 60_000 },
      );
    expect(await answer("/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await answer("/health/readiness")).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("runs as nonroot (65532) in /app, with no shell and a read-only root filesystem", async () => {
    const probe = [
      "const fs = require('node:fs');",
      "let write = 'written';",
      "try { fs.writeFileSync('/app/probe', ''); } catch (e) { write = e.code; }",
      "JSON.stringify({ uid: process.getuid(), gid: process.getgid(), user: require('node:os').userInfo().username,",
      "  cwd: process.cwd(), node: process.version, shell: ['/bin/sh', '/bin/bash', '/usr/bin/apt'].filter(fs.existsSync),",
      "  write, bundle: fs.existsSync('/app/dist/nats-operator/nats-operator.mjs') })",
    ].join(" ");
    const seen = JSON.parse(await kubectl("exec", FUNCTION, "--", "/nodejs/bin/node", "-p", probe)) as unknown;
    expect(seen).toEqual({
      uid: 65532,
      gid: 65532,
      user: "nonroot",
      cwd: "/app",
      node: expect.stringMatching(/^v24\./),
      shell: [],
      write: "EROFS",
      bundle: true,
    });
  });

  it("takes connections only from its namespace and Knative's once the chart's NetworkPolicy is applied", async () => {
    const policy = parse(await readFile(new URL("../../../knative/network-policy.yaml", import.meta.url), "utf8")) as {
      metadata: Record<string, unknown>;
    };
    await env.kube.create({ ...policy, metadata: { ...policy.metadata, namespace } } as KubeObject);
    // The Broker's filter and dispatcher live in knative-eventing; a pod there stands for them.
    await env.transport.request("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: KNATIVE_EVENTING } },
    });
    const outsider = await env.namespace("operator-image-outsider");
    const callers: [string, string][] = [
      ["another namespace", outsider],
      ["the operator's namespace", namespace],
      [KNATIVE_EVENTING, KNATIVE_EVENTING],
    ];
    const probes = await Promise.all(callers.map(([, ns]) => startProbePod(env.kube, ns)));
    const pod = await env.kube.get<Pod>({ apiVersion: "v1", kind: "Pod", namespace, name: FUNCTION });
    const reached = async () =>
      Object.fromEntries(
        await Promise.all(
          callers.map(async ([from], i) => [
            from,
            await connectFromContainer(state, probes[i]?.containerID ?? "", pod?.status?.podIP ?? "", 8080),
          ]),
        ),
      );
    const want = {
      "another namespace": "ECONNREFUSED",
      "the operator's namespace": "connected",
      [KNATIVE_EVENTING]: "connected",
    };
    // kube-router writes a new pod's rules on its next sync: asked until they hold.
    let last: Record<string, string> = {};
    await waitFor(
      "the functions' policy enforced",
      async () => {
        last = await reached();
        return JSON.stringify(last) === JSON.stringify(want);
      },
      { timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch(() => undefined);
    expect(last).toEqual(want);
  }, 120_000);
});
