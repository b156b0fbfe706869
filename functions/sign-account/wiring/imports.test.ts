import { describe, expect, it } from "@jest/globals";
import { createAccount, decode } from "@nats-io/jwt";
import type { KubeObject } from "../../../shared/kube/index.ts";
import { accountObject, operatorObject, systemAccountObject } from "../../../test/fixtures/auth/objects.ts";
import { authWorld, dependentsOf } from "../../../test/support/auth-world.ts";
import { memoryKube } from "../../../test/support/memory-kube.ts";
import { exportsClaim } from "./exports.ts";
import type { NatsAccount } from "../objects.ts";

type Status = NonNullable<NatsAccount["status"]>;
type Claims = {
  nats: {
    exports?: Record<string, unknown>[];
    imports?: (Record<string, unknown> & { token?: string })[];
  };
};

const claimsOf = (jwt: string | undefined) => decode<unknown>(jwt ?? "") as unknown as Claims;
const conditionOf = (status: Status | undefined, type: string) => status?.conditions?.find((c) => c.type === type);

const ORDERS_EXPORTS = [
  { name: "events", type: "Stream", subject: "orders.events.>" },
  { name: "lookup", type: "Service", subject: "orders.lookup", responseType: "Stream" },
  {
    name: "audit",
    type: "Stream",
    subject: "audit.>",
    access: "Private",
    importers: [{ kind: "NatsAccount", name: "shop" }],
  },
];
const importOf = (exportName: string, extra: Record<string, unknown> = {}) => ({
  accountRef: { kind: "NatsAccount", name: "orders" },
  export: exportName,
  ...extra,
});

/** An operator, its system account, `orders` exporting and `shop` importing, each reconciled once, in `order`. */
async function wired(imports: Record<string, unknown>[], extra: KubeObject[] = [], order = ["orders", "shop"]) {
  const world = authWorld([
    operatorObject(),
    systemAccountObject(),
    accountObject("orders", { exports: ORDERS_EXPORTS }),
    accountObject("shop", { imports }),
    ...extra,
  ]);
  await world.run("NatsSystemAccount", "sys");
  await world.run("NatsOperator", "main");
  for (const name of order) await world.run("NatsAccount", name);
  const read = (name: string) =>
    world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", name).then((a) => a?.status);
  return { world, read };
}

describe("exports in the account JWT", () => {
  it("signs stream and service exports, a private one requiring a token, services Singleton unless told", () => {
    expect(
      exportsClaim([
        { name: "events", type: "Stream", subject: "orders.events.>" },
        { name: "ask", type: "Service", subject: "ask" },
        { name: "audit", type: "Stream", subject: "audit.>", access: "Private" },
      ]),
    ).toEqual({
      exports: [
        { name: "events", subject: "orders.events.>", type: "stream" },
        { name: "ask", subject: "ask", type: "service", response_type: "Singleton" },
        { name: "audit", subject: "audit.>", type: "stream", token_req: true },
      ],
    });
  });

  it("expands the jetstream-stepdown preset into the stream and consumer leader-stepdown service exports", () => {
    expect(exportsClaim([{ preset: "jetstream-stepdown" }])).toEqual({
      exports: [
        {
          name: "jetstream-stepdown-stream",
          subject: "$JS.API.STREAM.LEADER.STEPDOWN.*",
          type: "service",
          response_type: "Singleton",
        },
        {
          name: "jetstream-stepdown-consumer",
          subject: "$JS.API.CONSUMER.LEADER.STEPDOWN.*.*",
          type: "service",
          response_type: "Singleton",
        },
      ],
    });
  });

  it("signs no exports field for an account that exports nothing", () => {
    expect(exportsClaim(undefined)).toEqual({});
  });
});

describe("imports resolved against the exporting NatsAccount", () => {
  it("takes subject, type and response type from the exporter, remaps localSubject, and reports each import", async () => {
    const { read } = await wired([importOf("events"), importOf("lookup", { localSubject: "lookup", share: true })]);
    const [orders, shop] = [await read("orders"), await read("shop")];
    expect(claimsOf(shop?.jwt).nats.imports).toEqual([
      { name: "events", subject: "orders.events.>", account: orders?.publicKey, type: "stream" },
      {
        name: "lookup",
        subject: "orders.lookup",
        account: orders?.publicKey,
        type: "service",
        local_subject: "lookup",
        share: true,
      },
    ]);
    expect(claimsOf(orders?.jwt).nats.exports?.[1]).toMatchObject({ name: "lookup", response_type: "Stream" });
    expect(shop?.imports).toEqual([
      { export: "orders/events", subject: "orders.events.>", type: "Stream" },
      { export: "orders/lookup", subject: "orders.lookup", localSubject: "lookup", type: "Service" },
    ]);
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "True" });
    expect(conditionOf(shop, "ReferencesResolved")).toMatchObject({ status: "True", reason: "AllImportsResolved" });
  });

  it("signs an activation token for a private export listing the importer, with the exporter's signing key", async () => {
    const { read } = await wired([importOf("audit")]);
    const [orders, shop] = [await read("orders"), await read("shop")];
    const token = claimsOf(shop?.jwt).nats.imports?.[0]?.token ?? "";
    const activation = decode<Record<string, unknown>>(token);
    expect(activation).toMatchObject({
      name: "audit",
      sub: shop?.publicKey,
      nats: { subject: "audit.>", kind: "stream", issuer_account: orders?.publicKey, type: "activation" },
    });
    expect(activation.exp).toBeUndefined();
    expect(activation.iss).not.toBe(orders?.publicKey);
    expect(claimsOf(orders?.jwt).nats).toMatchObject({ signing_keys: [activation.iss] });
    expect(shop?.imports?.[0]).toMatchObject({ export: "orders/audit", activation: "Signed" });
  });

  it("keeps the importer's JWT and its token when nothing changed: signed once", async () => {
    const { world, read } = await wired([importOf("audit")]);
    const before = (await read("shop"))?.jwt;
    const again = await world.run("NatsAccount", "shop");
    expect(again.summary).toContain("signed, unchanged");
    expect((await read("shop"))?.jwt).toBe(before);
  });

  it("leaves out a private import that the export does not list, and signs the rest: ImportsUnresolved", async () => {
    const exporter = accountObject("orders", {
      exports: [{ ...ORDERS_EXPORTS[2], importers: [{ kind: "NatsAccount", name: "someone-else" }] }],
    });
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      exporter,
      accountObject("shop", { imports: [importOf("audit"), importOf("missing")] }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "orders");
    await world.run("NatsAccount", "shop");
    const shop = (await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "shop"))?.status;
    expect(shop?.jwt).toBeDefined();
    expect(claimsOf(shop?.jwt).nats.imports).toBeUndefined();
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "False", reason: "ImportsUnresolved" });
    expect(conditionOf(shop, "Ready")?.message).toContain(
      "orders/audit: NatsAccount auth/orders export audit is private and does not list NatsAccount auth/shop",
    );
    expect(conditionOf(shop, "Ready")?.message).toContain("orders/missing: NatsAccount auth/orders exports no missing");
    expect(conditionOf(shop, "ReferencesResolved")).toMatchObject({ status: "False", reason: "ImportsUnresolved" });
    expect(shop?.imports).toEqual([{ export: "orders/audit" }, { export: "orders/missing" }]);
    expect(world.events.some((e) => e.includes("Warning ImportsUnresolved"))).toBe(true);
  });

  it("leaves out an import from an account under another NatsOperator", async () => {
    const foreign = accountObject("orders", { operatorRef: { name: "other" }, exports: ORDERS_EXPORTS });
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      { ...foreign, status: { publicKey: "AFOREIGN" } } as KubeObject,
      accountObject("shop", { imports: [importOf("events")] }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "shop");
    const shop = (await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "shop"))?.status;
    expect(conditionOf(shop, "Ready")?.message).toContain(
      "orders/events: NatsAccount auth/orders is under NatsOperator auth/other, not auth/main",
    );
    expect(claimsOf(shop?.jwt).nats.imports).toBeUndefined();
  });

  it("records the importer's key but signs nothing while the exporter has none: ExporterPending", async () => {
    const { read } = await wired([importOf("events")], [], ["shop"]);
    const shop = await read("shop");
    expect(shop?.publicKey).toMatch(/^A/);
    expect(shop?.jwt).toBeUndefined();
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "False", reason: "ExporterPending" });
    expect(conditionOf(shop, "ReferencesResolved")).toMatchObject({ status: "False", reason: "ExporterPending" });
  });

  it("re-signs the importers once the exporter is signed: they are its dependents", async () => {
    const { world } = await wired([importOf("events")], [], ["shop"]);
    const dependents = await dependentsOf(world.kube, { kind: "NatsAccount", namespace: "auth", name: "orders" });
    expect(dependents).toContainEqual({ kind: "NatsAccount", namespace: "auth", name: "shop" });
  });

  it("signs the importer again without an export the exporter withdrew", async () => {
    const { world, read } = await wired([importOf("events")]);
    const orders = await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "orders");
    await world.kube.patch(
      { apiVersion: "auth.nats-operator.io/v1beta1", kind: "NatsAccount", namespace: "auth", name: "orders" },
      { spec: { ...orders?.spec, exports: [ORDERS_EXPORTS[1]] } },
      "merge",
    );
    await world.run("NatsAccount", "orders");
    await world.run("NatsAccount", "shop");
    const shop = await read("shop");
    expect(claimsOf(shop?.jwt).nats.imports).toBeUndefined();
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "False", reason: "ImportsUnresolved" });
    expect(conditionOf(shop, "Ready")?.message).toContain("orders/events: NatsAccount auth/orders exports no events");
  });

  it("imports the system account's monitoring exports with the importer's key in the subject", async () => {
    const { read, world } = await wired([
      { accountRef: { kind: "NatsSystemAccount", name: "sys" }, export: "account-monitoring-services" },
      { accountRef: { kind: "NatsSystemAccount", name: "sys" }, export: "account-monitoring-streams" },
    ]);
    const shop = await read("shop");
    const sys = await world.get<KubeObject & { status?: { publicKey?: string } }>(
      "auth.nats-operator.io/v1beta1",
      "NatsSystemAccount",
      "sys",
    );
    expect(claimsOf(shop?.jwt).nats.imports).toEqual([
      {
        name: "account-monitoring-services",
        subject: `$SYS.REQ.ACCOUNT.${shop?.publicKey}.*`,
        account: sys?.status?.publicKey,
        type: "service",
      },
      {
        name: "account-monitoring-streams",
        subject: `$SYS.ACCOUNT.${shop?.publicKey}.>`,
        account: sys?.status?.publicKey,
        type: "stream",
      },
    ]);
  });
});

describe("imports across namespaces", () => {
  const exporterIn = (namespace: string) =>
    ({
      ...accountObject("orders", { operatorRef: { name: "main", namespace: "auth" }, exports: ORDERS_EXPORTS }),
      metadata: { name: "orders", namespace, uid: "uid-orders", creationTimestamp: "2026-01-02T00:00:00Z" },
      status: { publicKey: "AEXPORTER" },
    }) as KubeObject;
  const crossImport = { accountRef: { kind: "NatsAccount", name: "orders", namespace: "shared" }, export: "events" };
  const grant = {
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsReferenceGrant",
    metadata: { name: "importers", namespace: "shared" },
    spec: {
      from: [{ group: "auth.nats-operator.io", kind: "NatsAccount", namespace: "auth" }],
      to: [{ group: "auth.nats-operator.io", kind: "NatsAccount", name: "orders" }],
    },
  } as KubeObject;

  async function shopWith(extra: KubeObject[]) {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      exporterIn("shared"),
      accountObject("shop", { imports: [crossImport] }),
      ...extra,
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "shop");
    return (await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "shop"))?.status;
  }

  it("leaves out an import into another namespace that no grant there admits, naming the grant namespace", async () => {
    const shop = await shopWith([]);
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "False", reason: "ImportsUnresolved" });
    expect(conditionOf(shop, "Ready")?.message).toContain(
      "shared/orders/events: no NatsReferenceGrant in namespace shared admits NatsAccount auth/shop to NatsAccount shared/orders",
    );
    expect(shop?.imports).toEqual([{ export: "shared/orders/events" }]);
  });

  it("resolves it where a grant in the exporter's namespace admits the importer's namespace", async () => {
    const shop = await shopWith([grant]);
    expect(conditionOf(shop, "Ready")).toMatchObject({ status: "True" });
    expect(claimsOf(shop?.jwt).nats.imports).toEqual([
      { name: "events", subject: "orders.events.>", account: "AEXPORTER", type: "stream" },
    ]);
    expect(shop?.imports?.[0]).toMatchObject({ export: "shared/orders/events" });
  });

  it("a grant's event names every auth object referring into its namespace from another", async () => {
    const { referrersInto } = await import("../related.ts");
    const kube = memoryKube([exporterIn("shared"), accountObject("shop", { imports: [crossImport] }), grant]);
    const target = await referrersInto(kube, "shared");
    expect(target).toEqual([{ kind: "NatsAccount", namespace: "auth", name: "shop" }]);
  });
});

describe("activation tokens for importers an export lists by public key", () => {
  async function exporterListing(keys: string[]) {
    const exports = [
      {
        name: "prices",
        type: "Stream",
        subject: "prices.>",
        access: "Private",
        importers: keys.map((publicKey) => ({ publicKey })),
      },
    ];
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("orders", { exports })]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "orders");
    const read = () =>
      world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "orders").then((a) => a?.status);
    return { world, read };
  }

  it("publishes a token per listed key in status.exports, signed by the account's signing key, kept while unchanged", async () => {
    const importer = createAccount().getPublicKey();
    const { world, read } = await exporterListing([importer]);
    const orders = await read();
    const token = orders?.exports?.[0]?.importers?.[0]?.activationToken ?? "";
    expect(orders?.exports).toEqual([{ name: "prices", importers: [{ publicKey: importer, activationToken: token }] }]);
    expect(decode<Record<string, unknown>>(token)).toMatchObject({
      name: "prices",
      sub: importer,
      iss: (claimsOf(orders?.jwt) as unknown as { nats: { signing_keys: string[] } }).nats.signing_keys[0],
      nats: { subject: "prices.>", kind: "stream", issuer_account: orders?.publicKey },
    });
    expect(conditionOf(orders, "Ready")).toMatchObject({ status: "True" });
    await world.run("NatsAccount", "orders");
    expect((await read())?.exports?.[0]?.importers?.[0]?.activationToken).toBe(token);
  });

  it("gives a key that is not an account key no token: ActivationsUnsigned, the account signed all the same", async () => {
    const { read } = await exporterListing(["UNOTANACCOUNT"]);
    const orders = await read();
    expect(orders?.jwt).toBeDefined();
    expect(conditionOf(orders, "Ready")).toMatchObject({ status: "False", reason: "ActivationsUnsigned" });
    expect(conditionOf(orders, "Ready")?.message).toContain(
      "export prices: importer UNOTANACCOUNT is not an account public key",
    );
  });
});

describe("the jetstream-stepdown preset and the system account", () => {
  it("imports an account's stepdown services into the system account under acc.<key>., once the account is signed", async () => {
    const world = authWorld([
      operatorObject(),
      systemAccountObject(),
      accountObject("balanced", { exports: [{ preset: "jetstream-stepdown" }] }),
    ]);
    await world.run("NatsSystemAccount", "sys");
    await world.run("NatsOperator", "main");
    await world.run("NatsAccount", "balanced");
    const account = { kind: "NatsAccount" as const, namespace: "auth", name: "balanced" };
    expect(await dependentsOf(world.kube, account)).toContainEqual({
      kind: "NatsOperator",
      namespace: "auth",
      name: "main",
    });
    await world.run("NatsOperator", "main");
    type Operator = KubeObject & { status?: { systemAccount?: { jwt?: string } } };
    const operator = await world.get<Operator>("auth.nats-operator.io/v1beta1", "NatsOperator", "main");
    const key = (await world.get<NatsAccount>("auth.nats-operator.io/v1beta1", "NatsAccount", "balanced"))?.status
      ?.publicKey;
    expect(claimsOf(operator?.status?.systemAccount?.jwt).nats.imports).toEqual([
      {
        name: "jetstream-stepdown-stream",
        subject: "$JS.API.STREAM.LEADER.STEPDOWN.*",
        account: key,
        type: "service",
        local_subject: `acc.${key}.$JS.API.STREAM.LEADER.STEPDOWN.*`,
      },
      {
        name: "jetstream-stepdown-consumer",
        subject: "$JS.API.CONSUMER.LEADER.STEPDOWN.*.*",
        account: key,
        type: "service",
        local_subject: `acc.${key}.$JS.API.CONSUMER.LEADER.STEPDOWN.*.*`,
      },
    ]);
    // Said once: the operator is not a dependent again until the preset or the key changes.
    expect(await dependentsOf(world.kube, account)).not.toContainEqual(
      expect.objectContaining({ kind: "NatsOperator" }),
    );
  });
});
