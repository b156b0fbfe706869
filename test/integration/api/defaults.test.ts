// The API server applies the documented defaults (read back after create),
// and nothing else: controller-side ("semantic") defaults stay unset.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  accepted,
  closeSession,
  create,
  objectOf,
  openSession,
  read,
  uniqueName,
  type ApiSession,
} from "./support/api.ts";
import type { KindName } from "../../../shared/api/kinds.ts";

let session: ApiSession | undefined;
beforeAll(async () => {
  session = await openSession("api-defaults");
}, 120_000);
afterAll(async () => {
  await closeSession(session);
});

interface DefaultCase {
  readonly kind: KindName;
  readonly spec: Record<string, unknown>;
  /** Expected spec after defaulting (a subset match). */
  readonly expected: Record<string, unknown>;
  /** Paths (dotted, below spec) that must stay unset. */
  readonly unset?: readonly string[];
}

const conn = { connectionRef: { name: "conn" } };
const policies = (deletionPolicy: string) => ({ adoptionPolicy: "Never", terminalPolicy: "Hold", deletionPolicy });
const moves = { moves: { leader: true, placement: false } };

const CASES: readonly DefaultCase[] = [
  {
    kind: "NatsConnection",
    spec: {
      servers: ["nats://n:4222"],
      tls: { ca: { secretKeyRef: { name: "ca" } } },
      credentials: { secretKeyRef: { name: "creds" } },
    },
    expected: {
      tls: { ca: { secretKeyRef: { name: "ca", key: "ca.crt" } } },
      credentials: { secretKeyRef: { name: "creds", key: "user.creds" } },
    },
  },
  {
    kind: "NatsCluster",
    spec: {
      version: "2.15.0",
      replicas: 3,
      exporter: {},
      routes: { tls: {} },
      monitor: {},
      auth: { trustRef: { name: "t" }, systemCredentials: { secretKeyRef: { name: "c" } } },
    },
    expected: {
      exporter: { enabled: true },
      routes: { tls: { enabled: true } },
      monitor: { networkPolicy: true },
      auth: { trustRef: { name: "t" }, systemCredentials: { secretKeyRef: { name: "c", key: "user.creds" } } },
    },
    unset: ["auth.resolver", "image", "exporter.image", "rollout"],
  },
  {
    kind: "NatsCluster",
    spec: { version: "2.15.0", replicas: 1 },
    expected: {},
    unset: ["exporter", "routes", "monitor"],
  },
  { kind: "NatsAccount", spec: { operatorRef: { name: "op" } }, expected: { jwtTTL: "48h" }, unset: ["adoption"] },
  { kind: "NatsAccount", spec: { operatorRef: { name: "op" }, jwtTTL: "0s" }, expected: { jwtTTL: "0s" } },
  {
    kind: "NatsUser",
    spec: { accountRef: { kind: "NatsAccount", name: "a" }, credentials: { secretKeyRef: { name: "u-creds" } } },
    expected: { credentials: { secretKeyRef: { name: "u-creds", key: "user.creds" } } },
  },
  { kind: "NatsStream", spec: { ...conn }, expected: policies("Retain"), unset: ["name", "storage", "replicas"] },
  {
    kind: "NatsConsumer",
    spec: { ...conn, stream: "S" },
    expected: policies("Delete"),
    unset: ["recreateOnImmutableChange", "name"],
  },
  { kind: "NatsKeyValue", spec: { ...conn }, expected: policies("Retain") },
  { kind: "NatsObjectStore", spec: { ...conn }, expected: policies("Retain") },
  { kind: "NatsBalancer", spec: { ...conn }, expected: moves, unset: ["interval"] },
  { kind: "NatsSystemBalancer", spec: { ...conn }, expected: moves, unset: ["interval"] },
  {
    kind: "NatsSystemBalancer",
    spec: { ...conn, moves: { placement: true } },
    expected: { moves: { leader: true, placement: true } },
  },
];

const at = (value: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>((v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), value);

describe("defaults", () => {
  it.each(CASES.map((c) => [`${c.kind} ${JSON.stringify(c.spec)}`, c] as const))("%s", async (_name, c) => {
    if (!session) throw new Error("no session");
    const name = uniqueName(c.kind.toLowerCase());
    accepted(await create(session, objectOf(session, c.kind, name, c.spec)));
    const stored = accepted(await read(session, objectOf(session, c.kind, name, {})));
    expect(stored.spec).toMatchObject(c.expected);
    for (const path of c.unset ?? []) expect([path, at(stored.spec, path)]).toEqual([path, undefined]);
  });
});
