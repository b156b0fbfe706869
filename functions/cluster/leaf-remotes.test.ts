import { beforeAll, describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../shared/kube/index.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import { createOperator, type SignedAccount, type TestOperator } from "../../test/support/nats-auth.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { resolveLeafRemotes } from "./leaf-remotes.ts";
import { type ReadyTrust, validateTrust } from "./trust/trust-validation.ts";

let operator: TestOperator;
let trust: ReadyTrust;
let sensors: SignedAccount;
beforeAll(async () => {
  operator = await createOperator();
  sensors = await operator.signAccount("sensors");
  const judged = validateTrust("test", operator.operatorJWT, operator.systemAccount.jwt);
  if (judged.kind !== "ready") throw new Error(judged.message);
  trust = judged;
});

const connection = (namespace: string, name: string, credentials?: string): KubeObject =>
  ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsConnection",
    metadata: { name, namespace },
    spec: {
      servers: ["nats-leaf://hub.example:7422"],
      ...(credentials ? { credentials: { secretKeyRef: { name: credentials } } } : {}),
    },
  }) as KubeObject;
const credsSecret = (namespace: string, name: string, creds: string): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    data: { "user.creds": Buffer.from(creds).toString("base64") },
  }) as KubeObject;
const accountTrust = (namespace: string, name: string): KubeObject =>
  ({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsAccountTrust",
    metadata: { name, namespace },
    spec: { publicKey: sensors.publicKey, jwt: sensors.jwt },
  }) as KubeObject;

describe("leaf remotes from NatsConnections (C52, C54)", () => {
  it("reads the hub URLs and creds of a connection in the cluster's namespace, binding the global account", async () => {
    const kube = memoryKube([
      connection("nats-system", "hub", "hub-creds"),
      credsSecret("nats-system", "hub-creds", sensors.userCreds),
    ]);
    const cluster = demoCluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] });
    expect(await resolveLeafRemotes(kube, cluster, undefined)).toEqual({
      ready: [
        {
          connectionNamespace: "nats-system",
          connectionName: "hub",
          urls: ["nats-leaf://hub.example:7422"],
          creds: sensors.userCreds,
        },
      ],
      refused: [],
    });
  });

  it("leaves out, and names, a remote whose connection is missing, not granted, or without its Secret; keeps the others", async () => {
    const kube = memoryKube([
      connection("nats-system", "hub"),
      connection("hubs", "far"),
      connection("nats-system", "nocreds", "missing"),
    ]);
    const cluster = demoCluster({
      leafRemotes: [
        { connectionRef: { name: "hub" } },
        { connectionRef: { name: "gone" } },
        { connectionRef: { name: "far", namespace: "hubs" } },
        { connectionRef: { name: "nocreds" } },
        { connectionRef: { name: "hub" }, localSystemAccount: true },
      ],
    });
    const resolved = await resolveLeafRemotes(kube, cluster, undefined);
    expect(resolved.ready.map((r) => r.connectionName)).toEqual(["hub"]);
    expect(resolved.refused.map((r) => [r.connectionName, r.reason])).toEqual([
      ["gone", "LeafRemoteNotFound"],
      ["far", "NoGrant"],
      ["nocreds", "LeafRemoteNotReady"],
      ["hub", "LeafRemoteInvalid"],
    ]);
  });

  it("binds the cluster's system account, or a NatsAccountTrust's account with its JWT to preload", async () => {
    const kube = memoryKube([
      connection("nats-system", "hub"),
      connection("nats-system", "sys"),
      accountTrust("nats-system", "sensors"),
    ]);
    const cluster = demoCluster({
      auth: { trustRef: { name: "corp" } },
      leafRemotes: [
        { connectionRef: { name: "sys" }, localSystemAccount: true },
        { connectionRef: { name: "hub" }, localAccountTrustRef: { name: "sensors" } },
      ],
    });
    const resolved = await resolveLeafRemotes(kube, cluster, trust);
    expect(resolved.refused).toEqual([]);
    expect(resolved.ready.map((r) => [r.connectionName, r.account, r.accountJwt])).toEqual([
      ["sys", trust.systemAccount, undefined],
      ["hub", sensors.publicKey, sensors.jwt],
    ]);
  });
});
