// oidc.verifyDeliveries on real Knative Eventing with its OIDC on (`authentication-oidc: enabled`):
// the chart rendered with the value, the functions as pods (no Serving). The Broker's deliveries
// carry each Trigger's token and are handled; a token of another namespace's account, for the
// function's own audience, is answered 401. The control plane is this file's own, so the flag
// touches no other Knative file.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { repoRoot } from "../../harness/paths.ts";
import { waitFor } from "../../harness/wait.ts";
import { startKnativeCluster, type KnativeCluster } from "./support/knative-cluster.ts";
import { withoutServing, type Manifest } from "./support/operator-on-eventing.ts";

let k: KnativeCluster | undefined;
const cluster = (): KnativeCluster => {
  if (k === undefined) throw new Error("no control plane");
  return k;
};

beforeAll(async () => {
  k = await startKnativeCluster({ serving: false });
  await k.kubectl(
    "patch",
    "configmap",
    "config-features",
    "-n",
    "knative-eventing",
    "--type",
    "merge",
    "-p",
    JSON.stringify({ data: { "authentication-oidc": "enabled" } }),
  );
  const rendered = await k.helm(
    "template",
    "nats-operator",
    join(repoRoot, "chart"),
    "--namespace",
    "nats-operator",
    "--skip-tests",
    "--set",
    "oidc.verifyDeliveries=true",
    "--set",
    "resync.schedule=* * * * *",
  );
  const manifests: Manifest[] = [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "nats-operator" } }];
  for (const doc of parseAllDocuments(rendered)) {
    const manifest = doc.toJS() as Manifest | null;
    if (manifest !== null) manifests.push(...withoutServing(manifest));
  }
  const file = join(k.harness.workDir, "operator-oidc.yaml");
  await writeFile(file, manifests.map((m) => stringify(m)).join("---\n"));
  await k.kubectl("apply", "--server-side", "-f", file);
}, 600_000);

afterAll(async () => {
  await k?.stop();
}, 120_000);

describe("the functions with oidc.verifyDeliveries on Knative Eventing with OIDC", () => {
  it("have Triggers Ready, each with its OIDC identity", async () => {
    await cluster().kubectl(
      "wait",
      "--for=condition=Ready",
      "brokers,triggers",
      "--all",
      "-n",
      "nats-operator",
      "--timeout=240s",
    );
    const identity = await cluster().kubectl(
      "get",
      "trigger",
      "sync-stream",
      "-n",
      "nats-operator",
      "-o",
      "jsonpath={.status.auth.serviceAccountName}",
    );
    expect(identity).toBe("sync-stream-oidc-eventing.knative.dev-trigger");
  }, 260_000);

  it("take the Broker's deliveries: a NatsConnection gets its status from sync-stream", async () => {
    await cluster().apply(`
apiVersion: v1
kind: Namespace
metadata: { name: team-a }
---
apiVersion: nats-operator.io/v1beta1
kind: NatsConnection
metadata: { name: nowhere, namespace: team-a }
spec:
  servers: ["nats://nowhere.team-a.svc:4222"]
`);
    await waitFor(
      "team-a/nowhere has conditions",
      async () => {
        const c = await cluster().conditions("natsconnection", "team-a", "nowhere");
        return Object.keys(c).length > 0 ? c : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 2_000 },
    );
  }, 200_000);

  it("answer 401 to a token of another namespace's account, for the function's own audience", async () => {
    const kubectl = cluster().kubectl;
    await kubectl("create", "serviceaccount", "intruder", "-n", "team-a");
    const token = (
      await kubectl(
        "create",
        "token",
        "intruder",
        "-n",
        "team-a",
        "--audience",
        "serving.knative.dev/service/nats-operator/sync-stream",
      )
    ).trim();
    const podIP = (
      await kubectl(
        "get",
        "pods",
        "-n",
        "nats-operator",
        "-l",
        "app.kubernetes.io/name=sync-stream",
        "-o",
        "jsonpath={.items[0].status.podIP}",
      )
    ).trim();
    const post = (authorization?: string) =>
      fetch(`http://${podIP}:8080/`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "ce-specversion": "1.0",
          "ce-id": "forged-1",
          "ce-type": "dev.knative.sources.ping",
          "ce-source": "forged",
          "ce-target": "sync-stream",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ resync: true }),
      });
    const [without, foreign] = [await post(), await post(`Bearer ${token}`)];
    expect([without.status, foreign.status, await foreign.json()]).toEqual([401, 401, { status: "unauthenticated" }]);
  }, 60_000);
});
