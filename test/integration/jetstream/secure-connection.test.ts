// harness: real node
// Story 3's connection: a tls:// URL verified by a CA from a Secret (key
// ca.crt by default) and a credentials file from a Secret (key nats.creds),
// which decides the account the streams land in.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { js } from "./support/nats-cluster.ts";
import { CORE, create, JS, resource, waitForCondition } from "./support/objects.ts";
import { startSecureServer, type SecureServer } from "./support/secure-server.ts";

let env: Environment;
let server: SecureServer;
let client: NatsConnection;
let driver: RunningOperator;
let ns: string;

const secret = (name: string, data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: ns },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
});

beforeAll(async () => {
  env = await startEnvironment();
  server = await startSecureServer();
  client = await server.client();
  ns = await env.namespace("secure");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [ns]));
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await server?.stop();
  await env?.stop();
}, 60_000);

const connectionKey = (name: string) => ({ apiVersion: CORE, kind: "NatsConnection", namespace: ns, name });

describe("a NatsConnection with TLS and credentials from Secrets", () => {
  it("connects with the CA (default key ca.crt) and the creds (key nats.creds)", async () => {
    await env.kube.create(secret("messaging-nats-ca", { "ca.crt": server.ca }) as never);
    await env.kube.create(secret("payments-secrets", { "nats.creds": server.creds }) as never);
    await create(
      env.kube,
      resource(CORE, "NatsConnection", ns, "shared-payments", {
        servers: [server.url],
        tls: { ca: { secretKeyRef: { name: "messaging-nats-ca" } } },
        credentials: { secretKeyRef: { name: "payments-secrets", key: "nats.creds" } },
      }),
    );
    const c = await waitForCondition(env.kube, connectionKey("shared-payments"), "Ready", "True", "Connected");
    expect(c.status?.conditions?.[0]?.message).toBe(`connected to ${server.url.replace("tls://", "")}`);
  });

  it("creates streams in the account the credentials name", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", ns, "orders", {
        connectionRef: { name: "shared-payments" },
        name: "ORDERS",
        subjects: ["orders.>"],
      }),
    );
    await waitForCondition(
      env.kube,
      { apiVersion: JS, kind: "NatsStream", namespace: ns, name: "orders" },
      "Ready",
      "True",
      "Synced",
    );
    // The test client is a user of the same account: it sees the stream.
    expect((await js<{ config?: { name: string } }>(client, "STREAM.INFO.ORDERS")).config?.name).toBe("ORDERS");
  });

  it("reports InvalidSecret when the creds key holds no credentials file", async () => {
    await env.kube.create(secret("garbage", { "user.creds": "not a creds file" }) as never);
    await create(
      env.kube,
      resource(CORE, "NatsConnection", ns, "bad-creds", {
        servers: [server.url],
        credentials: { secretKeyRef: { name: "garbage" } },
      }),
    );
    await waitForCondition(env.kube, connectionKey("bad-creds"), "Ready", "False", "InvalidSecret");
  });

  it("reports ConnectFailed when the server's certificate is not trusted (no CA given)", async () => {
    await create(
      env.kube,
      resource(CORE, "NatsConnection", ns, "no-ca", {
        servers: [server.url],
        credentials: { secretKeyRef: { name: "payments-secrets", key: "nats.creds" } },
      }),
    );
    await waitForCondition(env.kube, connectionKey("no-ca"), "Ready", "False", "ConnectFailed");
  });
});
