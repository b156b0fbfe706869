// harness: real node
// Deletion policies, and connections in another namespace admitted only by
// a NatsReferenceGrant there (checked every reconcile, so a deleted grant
// revokes, and deleting a resource whose connection is no longer admitted
// leaves its server object and finishes).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { NatsConnection } from "@nats-io/transport-node";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startNatsCluster, js, type NatsCluster } from "./support/nats-cluster.ts";
import { conditionsOf, CORE, create, JS, read, resource, waitForCondition } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

let env: Environment;
let nats: NatsCluster;
let client: NatsConnection;
let driver: RunningOperator;
let team: string;
let shared: string;

beforeAll(async () => {
  env = await startEnvironment();
  nats = await startNatsCluster({ servers: 1 });
  client = await nats.client();
  team = await env.namespace("team");
  shared = await env.namespace("shared");
  driver = await startOperator(env.transport, syncStreamOnly(env.kube, [team, shared]));
  await create(env.kube, resource(CORE, "NatsConnection", team, "local", { servers: nats.urls }));
  await create(env.kube, resource(CORE, "NatsConnection", shared, "platform", { servers: nats.urls }));
}, 180_000);

afterAll(async () => {
  await driver?.stop();
  await client?.close();
  await nats?.stop();
  await env?.stop();
}, 60_000);

const key = (namespace: string, kind: string, name: string) => ({ apiVersion: JS, kind, namespace, name });
const exists = async (stream: string) =>
  (await js<{ error?: unknown }>(client, `STREAM.INFO.${stream}`)).error === undefined;
const gone = (namespace: string, kind: string, name: string) =>
  waitFor(`${kind} ${name} deleted`, async () => (await read(env.kube, JS, kind, namespace, name)) === undefined);

describe("deletion policies", () => {
  it("Delete removes the stream from the server", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "scratch", {
        connectionRef: { name: "local" },
        deletionPolicy: "Delete",
        name: "SCRATCH",
        subjects: ["scratch.>"],
      }),
    );
    await waitForCondition(env.kube, key(team, "NatsStream", "scratch"), "Ready", "True", "Synced");
    await env.kube.delete(key(team, "NatsStream", "scratch"));
    await gone(team, "NatsStream", "scratch");
    expect(await exists("SCRATCH")).toBe(false);
  });

  it("Delete leaves a stream that carries someone else's marker", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "owner", {
        connectionRef: { name: "local" },
        name: "SHARED1",
        subjects: ["shared1.>"],
      }),
    );
    await waitForCondition(env.kube, key(team, "NatsStream", "owner"), "Ready", "True", "Synced");
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "intruder", {
        connectionRef: { name: "local" },
        adoptionPolicy: "AdoptOrCreate",
        deletionPolicy: "Delete",
        name: "SHARED1",
        subjects: ["shared1.>"],
      }),
    );
    const intruder = await waitForCondition(
      env.kube,
      key(team, "NatsStream", "intruder"),
      "Terminal",
      "True",
      "OwnedByOther",
    );
    expect(conditionsOf(intruder)).toEqual(["Ready=False/Terminal", "Terminal=True/OwnedByOther"]);
    await env.kube.delete(key(team, "NatsStream", "intruder"));
    await gone(team, "NatsStream", "intruder");
    expect(await exists("SHARED1")).toBe(true);
  });

  it("Delete with the NatsConnection gone releases the resource and leaves the stream", async () => {
    await create(env.kube, resource(CORE, "NatsConnection", team, "doomed", { servers: nats.urls }));
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "orphan", {
        connectionRef: { name: "doomed" },
        deletionPolicy: "Delete",
        name: "ORPHAN",
        subjects: ["orphan.>"],
      }),
    );
    await waitForCondition(env.kube, key(team, "NatsStream", "orphan"), "Ready", "True", "Synced");
    await env.kube.delete({ apiVersion: CORE, kind: "NatsConnection", namespace: team, name: "doomed" });
    await waitForCondition(env.kube, key(team, "NatsStream", "orphan"), "Ready", "False", "ConnectionNotFound");
    await env.kube.delete(key(team, "NatsStream", "orphan"));
    await gone(team, "NatsStream", "orphan");
    expect(await exists("ORPHAN")).toBe(true);
  });
});

describe("reference grants", () => {
  const grant = () =>
    resource(CORE, "NatsReferenceGrant", shared, "team-streams", {
      from: [{ group: "jetstream.nats-operator.io", kind: "NatsStream", namespace: team }],
      to: [{ group: "nats-operator.io", kind: "NatsConnection", name: "platform" }],
    });
  const crossRef = () => ({ connectionRef: { name: "platform", namespace: shared } });

  it("refuses a connection in another namespace without a grant: ReferencesResolved=False/NoGrant", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "remote", {
        ...crossRef(),
        deletionPolicy: "Delete",
        name: "REMOTE",
        subjects: ["remote.>"],
      }),
    );
    const s = await waitForCondition(
      env.kube,
      key(team, "NatsStream", "remote"),
      "Ready",
      "False",
      "ReferenceNotPermitted",
    );
    expect(conditionsOf(s)).toEqual(["Ready=False/ReferenceNotPermitted", "ReferencesResolved=False/NoGrant"]);
    expect(await exists("REMOTE")).toBe(false);
  });

  it("follows the reference once a grant in the target namespace admits it", async () => {
    await create(env.kube, grant());
    const s = await waitForCondition(env.kube, key(team, "NatsStream", "remote"), "Ready", "True", "Synced");
    expect(conditionsOf(s)).toEqual(["Ready=True/Synced", "Synced=True/MatchesSpec"]);
    expect(await exists("REMOTE")).toBe(true);
  });

  it("withdraws access when the grant is deleted", async () => {
    await env.kube.delete({ apiVersion: CORE, kind: "NatsReferenceGrant", namespace: shared, name: "team-streams" });
    await waitForCondition(env.kube, key(team, "NatsStream", "remote"), "Ready", "False", "ReferenceNotPermitted");
  });

  it("deleting a resource whose connection is no longer admitted leaves the stream, even under Delete", async () => {
    await env.kube.delete(key(team, "NatsStream", "remote"));
    await gone(team, "NatsStream", "remote");
    expect(await exists("REMOTE")).toBe(true);
  });
});

describe("connections", () => {
  it("reports ConnectFailed with a message when the servers cannot be reached", async () => {
    await create(env.kube, resource(CORE, "NatsConnection", team, "nowhere", { servers: ["nats://127.0.0.1:1"] }));
    const c = await waitForCondition(
      env.kube,
      { apiVersion: CORE, kind: "NatsConnection", namespace: team, name: "nowhere" },
      "Ready",
      "False",
      "ConnectFailed",
    );
    expect(c.status?.conditions?.[0]?.message).toMatch(/^cannot connect to nats:\/\/127\.0\.0\.1:1: /);
  });

  it("reports SecretNotFound for credentials in a missing Secret", async () => {
    await create(
      env.kube,
      resource(CORE, "NatsConnection", team, "nocreds", {
        servers: nats.urls,
        credentials: { secretKeyRef: { name: "absent" } },
      }),
    );
    await waitForCondition(
      env.kube,
      { apiVersion: CORE, kind: "NatsConnection", namespace: team, name: "nocreds" },
      "Ready",
      "False",
      "SecretNotFound",
    );
  });

  it("a stream on an unreachable connection shows ConnectionFailed", async () => {
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "stranded", {
        connectionRef: { name: "nowhere" },
        name: "STRANDED",
        subjects: ["stranded.>"],
      }),
    );
    await waitForCondition(env.kube, key(team, "NatsStream", "stranded"), "Ready", "False", "ConnectionFailed", 20_000);
  });
});
