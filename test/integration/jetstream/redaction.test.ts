// No credentials outside their namespace: a NatsConnection whose URL carries `user:pass` and
// whose server does not answer, granted to a NatsStream in another namespace. Its failure is
// reported everywhere it can be (both statuses, Events, the operator's log, the event log, the
// Broker's give-up and the dead-letter sink's record), and the URL's credentials are in none of it.
// No NATS server: the URL points at a port nobody listens on.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { CloudEvent } from "cloudevents";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deadLetter } from "../../../functions/dead-letter/index.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { startOperator, syncStreamOnly, type RunningOperator } from "../support/operator.ts";
import { condition, CORE, create, JS, read, resource, waitForCondition } from "./support/objects.ts";
import { waitFor } from "../../harness/wait.ts";

const secretUrl = "nats://user:pass@127.0.0.1:1";
const leaked = /user:pass|user%3Apass/;

let env: Environment;
let operator: RunningOperator;
let owner: string;
let team: string;
let dir: string;
let eventLog: string;

beforeAll(async () => {
  env = await startEnvironment();
  owner = await env.namespace("redaction-owner");
  team = await env.namespace("redaction-team");
  dir = await mkdtemp(join(tmpdir(), "redaction-"));
  eventLog = join(dir, "events.jsonl");
  operator = await startOperator(env.transport, {
    ...syncStreamOnly(env.kube, [owner, team]),
    // Two quick retries, so the Broker gives up (and logs it) within the test.
    policy: { retries: 2, backoffMs: 200 },
    logLevel: "debug",
    eventLog,
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe("a NatsConnection URL with user:pass, granted to another namespace", () => {
  it("appears in no status, Event, log line, recorded event or dead-letter record", async () => {
    await create(env.kube, resource(CORE, "NatsConnection", owner, "hub", { servers: [secretUrl] }));
    await create(
      env.kube,
      resource(CORE, "NatsReferenceGrant", owner, "team-streams", {
        from: [{ group: "jetstream.nats-operator.io", kind: "NatsStream", namespace: team }],
        to: [{ group: "nats-operator.io", kind: "NatsConnection", name: "hub" }],
      }),
    );
    await create(
      env.kube,
      resource(JS, "NatsStream", team, "orders", {
        connectionRef: { name: "hub", namespace: owner },
        name: "ORDERS",
        subjects: ["orders.>"],
      }),
    );
    const key = { apiVersion: JS, kind: "NatsStream", namespace: team, name: "orders" };
    const stream = await waitForCondition(env.kube, key, "Ready", "False", "ConnectionFailed");
    // The failure is told, naming the server without its credentials.
    expect(condition(stream, "Ready")?.message).toContain("cannot connect to nats://***@127.0.0.1:1");
    await waitFor("the Broker giving up on the stream's event", () =>
      operator.log.some((line) => line.includes("event dead-lettered")),
    );

    // What the dead-letter sink gets from Knative: the event and the answer it gave up on.
    const gaveUp = operator.deliveries.filter((d) => d.object === "NatsStream/orders" && d.outcome.kind === "retry");
    expect(gaveUp.length).toBeGreaterThan(0);
    const answer = JSON.stringify(gaveUp.at(-1)?.outcome);
    const dropped = new CloudEvent<unknown>({
      id: "dropped-1",
      source: "https://kube",
      type: "dev.knative.apiserver.resource.update",
      apiversion: JS,
      kind: "NatsStream",
      namespace: team,
      name: "orders",
      knativeerrorcode: "503",
      knativeerrordest: "http://sync-stream.nats-operator.svc.cluster.local",
      knativeerrordata: Buffer.from(answer).toString("base64"),
      // The add event, as the ApiServerSource sent it (with a status, it would be dropped as our echo).
      data: { metadata: stream.metadata, spec: stream.spec },
    } as never);
    expect((await operator.deliver(deadLetter, dropped)).kind).toBe("done");

    const statuses = await Promise.all([
      read(env.kube, CORE, "NatsConnection", owner, "hub"),
      read(env.kube, JS, "NatsStream", team, "orders"),
    ]);
    const events = (
      await Promise.all(
        [owner, team].map((namespace) =>
          env.kube.list<KubeObject>({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace }),
        ),
      )
    ).flat();
    const recorded = await readFile(eventLog, "utf8");
    expect(events.some((e) => (e as { reason?: string }).reason === "EventDropped")).toBe(true);
    expect(recorded).toContain("nats://***@127.0.0.1:1");

    expect(JSON.stringify(statuses.map((s) => s?.status))).not.toMatch(leaked);
    expect(JSON.stringify(events)).not.toMatch(leaked);
    expect(operator.log.filter((line) => leaked.test(line))).toEqual([]);
    expect(recorded).not.toMatch(leaked);
    expect(answer).not.toMatch(leaked);
  }, 120_000);
});
