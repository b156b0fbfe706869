// harness: real node
// Story 2's first half with the operator's own signing: a NatsOperator and NatsSystemAccount whose
// keys sign-account generates, a reference-form NatsOperatorTrust it fills, and a three-server
// JetStream NatsCluster that boots under that trust and is driven by a cluster-controller system
// user whose creds Secret sign-account wrote. No JWT is made by test code.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect, credsAuthenticator } from "@nats-io/transport-node";
import { createOperator } from "@nats-io/nkeys";
import { signAccount } from "../../../functions/sign-account/index.ts";
import type { KubeObject } from "../../../shared/kube/object.ts";
import { startEnvironment, type Environment } from "../support/environment.ts";
import { condition, quickstart, waitAtRest } from "../cluster/support/natscluster.ts";
import { startOperator, type RunningOperator } from "../support/operator.ts";
import { waitFor } from "../../harness/wait.ts";
import { jsonReplies } from "../support/replies.ts";

let env: Environment;
let operator: RunningOperator;
let namespace: string;

type Secret = KubeObject & { data?: Record<string, string> };
type WithStatus = KubeObject & {
  status?: Record<string, unknown> & { conditions?: { type: string; status: string; reason: string }[] };
};

const AUTH = "auth.nats-operator.io/v1beta1";
const podUrl = (cluster: string, ordinal: number) =>
  `nats://${cluster}-${ordinal}-0.${cluster}-headless.${namespace}.svc:4222`;

const authObject = (kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: AUTH, kind, metadata: { name, namespace }, spec }) as KubeObject;

const readSecret = (name: string) => env.kube.get<Secret>({ apiVersion: "v1", kind: "Secret", namespace, name });
const credsOf = async (name: string) =>
  Buffer.from((await readSecret(name))?.data?.["user.creds"] ?? "", "base64").toString("utf8");

beforeAll(async () => {
  env = await startEnvironment();
  namespace = await env.namespace("signacct");
  operator = await startOperator(env.transport, {
    extraFunctions: [signAccount],
    extraKinds: ["NatsOperator", "NatsSystemAccount", "NatsAccount", "NatsUser", "Secret"],
  });
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await env?.stop();
}, 120_000);

describe("sign-account on a real control plane and real NATS servers", () => {
  it("signs a generated operator into a reference-form trust that a 3-server JetStream cluster boots under, and its system user reaches every server", async () => {
    await env.kube.create(authObject("NatsOperator", "main", { systemAccountRef: { name: "sys" } }));
    await env.kube.create(authObject("NatsSystemAccount", "sys", { operatorRef: { name: "main" } }));
    await env.kube.create({
      apiVersion: "nats-operator.io/v1beta1",
      kind: "NatsOperatorTrust",
      metadata: { name: "main", namespace },
      spec: { operatorRef: { name: "main" } },
    } as KubeObject);
    await env.kube.create(
      authObject("NatsUser", "controller", {
        accountRef: { kind: "NatsSystemAccount", name: "sys" },
        preset: "cluster-controller",
      }),
    );
    await env.kube.create(authObject("NatsUser", "admin", { accountRef: { kind: "NatsSystemAccount", name: "sys" } }));

    const trust = await waitFor(
      "the trust mirrored",
      async () => {
        const t = await env.kube.get<WithStatus>({
          apiVersion: "nats-operator.io/v1beta1",
          kind: "NatsOperatorTrust",
          namespace,
          name: "main",
        });
        return t?.status?.conditions?.find((c) => c.type === "Ready")?.reason === "Mirrored" ? t : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw error;
    });
    const signed = await env.kube.get<WithStatus>({ apiVersion: AUTH, kind: "NatsOperator", namespace, name: "main" });
    expect(trust.status?.["operatorJWT"]).toBe(signed?.status?.["jwt"]);
    const identity = await readSecret("main-operator-identity");
    expect(identity?.metadata.annotations?.["auth.nats-operator.io/generated-for"]).toBe("operator/main");
    expect(identity?.metadata.ownerReferences).toBeUndefined();

    await waitFor("the controller's creds", async () => (await credsOf("controller-creds")).includes("NATS USER JWT"), {
      timeoutMs: 60_000,
    });
    const manifest = quickstart(namespace, "signed");
    manifest.spec["auth"] = {
      trustRef: { name: "main" },
      systemCredentials: { secretKeyRef: { name: "controller-creds" } },
    };
    await env.kube.create(manifest);
    const cluster = await waitAtRest(env.kube, namespace, 300_000, "signed").catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-40).join(""));
      throw error;
    });
    expect(condition(cluster, "Ready")?.status).toBe("True");
    expect(cluster.status?.servers?.map((s) => s.name)).toEqual(["signed-0", "signed-1", "signed-2"]);

    const servers = [0, 1, 2].map((i) => podUrl("signed", i));
    const asUser = (creds: string, inboxPrefix?: string) =>
      connect({
        servers,
        authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
        timeout: 5_000,
        ...(inboxPrefix ? { inboxPrefix } : {}),
      });
    // The preset user publishes only its subjects and hears replies only in its own inbox.
    const controller = await asUser(await credsOf("controller-creds"), "_INBOX.cluster-controller");
    const statsz = await waitFor(
      "STATSZ from all three servers to the cluster-controller user",
      async () => {
        const answers = await jsonReplies<{ server?: { name?: string } }>(controller, "$SYS.REQ.SERVER.PING.STATSZ", {
          want: 3,
          ms: 5_000,
          inboxPrefix: "_INBOX.cluster-controller",
        });
        const names = answers.map((a) => a.server?.name).sort();
        return names.length === 3 ? names : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(statsz).toEqual(["signed-0", "signed-1", "signed-2"]);
    await controller.close();
    // A system user without a preset may ask anything of $SYS.
    const admin = await asUser(await credsOf("admin-creds"));
    const pings = await jsonReplies<{ server?: { name?: string } }>(admin, "$SYS.REQ.SERVER.PING", { want: 3 });
    expect(pings.map((p) => p.server?.name).sort()).toEqual(["signed-0", "signed-1", "signed-2"]);
    await admin.close();

    // No seed of a generated Secret in the function's log lines or in the namespace's Events.
    const secrets = await env.kube.list<Secret>({ apiVersion: "v1", kind: "Secret", namespace });
    const seeds = secrets.flatMap((s) =>
      Object.values(s.data ?? {}).flatMap(
        (v) =>
          Buffer.from(v, "base64")
            .toString("utf8")
            .match(/(?<![A-Z2-7])S[OAU][A-Z2-7]{56}(?![A-Z2-7])/g) ?? [],
      ),
    );
    expect(seeds.length).toBeGreaterThanOrEqual(6);
    const events = JSON.stringify(await env.kube.list({ apiVersion: "events.k8s.io/v1", kind: "Event", namespace }));
    const log = operator.log.join("");
    for (const seed of seeds) {
      expect(events).not.toContain(seed);
      expect(log).not.toContain(seed);
    }
  }, 600_000);

  it("rotates the operator's signing key: accounts are re-signed by the new key and RetiringKeysInUse says when the old one can go (A6)", async () => {
    await env.kube.create(authObject("NatsAccount", "rotated", { operatorRef: { name: "main" } }));
    type Account = KubeObject & { status?: { jwt?: string } };
    const issuerOf = (jwt: string | undefined) =>
      (JSON.parse(Buffer.from((jwt ?? "").split(".")[1] ?? "", "base64url").toString() || "{}") as { iss?: string })
        .iss;
    const accountKey = { apiVersion: AUTH, kind: "NatsAccount", namespace, name: "rotated" };
    const signedBefore = await waitFor(
      "the account signed",
      async () => issuerOf((await env.kube.get<Account>(accountKey))?.status?.jwt),
      { timeoutMs: 60_000 },
    );
    // The new key in a Secret of the user's, the generated one kept but marked retiring.
    const next = createOperator();
    await env.kube.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "main-signing-2", namespace },
      stringData: { seed: new TextDecoder().decode(next.getSeed()) },
    } as KubeObject);
    await env.kube.patch(
      { apiVersion: AUTH, kind: "NatsOperator", namespace, name: "main" },
      {
        spec: {
          keys: {
            signing: [
              { name: "signing-1", secretKeyRef: { name: "main-operator-signing-1", key: "seed" }, retiring: true },
              { name: "signing-2", secretKeyRef: { name: "main-signing-2", key: "seed" } },
            ],
          },
        },
      },
      "merge",
    );
    const newKey = next.getPublicKey();
    await waitFor(
      "the account re-signed by the new key",
      async () => issuerOf((await env.kube.get<Account>(accountKey))?.status?.jwt) === newKey,
      { timeoutMs: 120_000 },
    );
    expect(signedBefore).not.toBe(newKey);
    const retiringOf = (op: WithStatus | undefined) =>
      op?.status?.conditions?.find((c) => c.type === "RetiringKeysInUse");
    const readOperator = () =>
      env.kube.get<WithStatus>({ apiVersion: AUTH, kind: "NatsOperator", namespace, name: "main" });
    const settled = await waitFor(
      "RetiringKeysInUse False",
      async () => {
        const op = await readOperator();
        return retiringOf(op)?.status === "False" ? op : undefined;
      },
      { timeoutMs: 120_000 },
    ).catch((error: unknown) => {
      process.stdout.write(operator.log.slice(-30).join(""));
      throw error;
    });
    expect(retiringOf(settled)).toMatchObject({
      reason: "NoneInUse",
      message: expect.stringContaining("can be removed") as unknown,
    });
  }, 300_000);
});
