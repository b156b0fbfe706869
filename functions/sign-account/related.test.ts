import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../shared/kube/index.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import {
  accountObject,
  operatorObject,
  secretObject,
  systemAccountObject,
  userObject,
} from "../../test/fixtures/auth/objects.ts";
import { authWorld } from "../../test/support/auth-world.ts";
import { CloudEvent } from "cloudevents";
import { decodeEvent, EventTypes } from "../../shared/runtime/event.ts";
import { createLogger } from "../../shared/telemetry/index.ts";
import { signAccount } from "./index.ts";
import { ownerOfSecret } from "./related.ts";

describe("which auth object an event is about", () => {
  it("finds the owner of a generated seed Secret by its annotation, and by its name once it is deleted", async () => {
    const annotated = secretObject("renamed", { seed: "x" }, { "auth.nats-operator.io/generated-for": "account/app" });
    expect(await ownerOfSecret(memoryKube([annotated]), "auth", "renamed")).toEqual({
      kind: "subject",
      subject: { kind: "NatsAccount", namespace: "auth", name: "app" },
    });
    expect(await ownerOfSecret(memoryKube(), "auth", "main-operator-identity")).toMatchObject({
      subject: { kind: "NatsOperator", name: "main" },
    });
    expect(await ownerOfSecret(memoryKube(), "auth", "sys-systemaccount-signing-1")).toMatchObject({
      subject: { kind: "NatsSystemAccount", name: "sys" },
    });
  });

  it("finds the user of a creds Secret by its owner, and by its name once it is deleted", async () => {
    const owned = {
      ...secretObject("custom", { "user.creds": "x" }),
      metadata: {
        name: "custom",
        namespace: "auth",
        ownerReferences: [
          { apiVersion: "auth.nats-operator.io/v1beta1", kind: "NatsUser", name: "alice", uid: "u", controller: true },
        ],
      },
    } as KubeObject;
    expect(await ownerOfSecret(memoryKube([owned]), "auth", "custom")).toMatchObject({
      subject: { kind: "NatsUser", name: "alice" },
    });
    expect(await ownerOfSecret(memoryKube(), "auth", "alice-creds")).toMatchObject({
      subject: { kind: "NatsUser", name: "alice" },
    });
  });

  it("takes the event of a creds Secret holding what sign-account wrote as the echo of that write, and any other change to its user", async () => {
    const world = authWorld([operatorObject(), systemAccountObject(), accountObject("app"), userObject("alice")]);
    for (const [kind, name] of [
      ["NatsSystemAccount", "sys"],
      ["NatsOperator", "main"],
      ["NatsAccount", "app"],
      ["NatsUser", "alice"],
    ] as const)
      await world.run(kind, name);
    expect(await ownerOfSecret(world.kube, "auth", "alice-creds")).toEqual({
      kind: "none",
      reason: "Secret alice-creds holds the creds sign-account wrote for NatsUser auth/alice",
    });
    // Edited by someone else (here: emptied), the Secret is its user's business again.
    const secret = (await world.get<KubeObject>("v1", "Secret", "alice-creds")) as KubeObject;
    await world.kube.replace({ ...secret, data: {} } as KubeObject);
    expect(await ownerOfSecret(world.kube, "auth", "alice-creds")).toMatchObject({
      subject: { kind: "NatsUser", name: "alice" },
    });
  });

  it("follows a renewal tick to the account it names, and ignores other Secrets", async () => {
    // A renewal tick names its account: the runtime reconciles that account (here gone already).
    const tick = new CloudEvent<unknown>({
      type: EventTypes.ping,
      source: "/apis/v1/namespaces/auth/pingsources/app-account-renewal",
      data: { namespace: "auth", kind: "NatsAccount", name: "app" },
    });
    const decoded = decodeEvent(tick);
    if (!decoded.ok) throw new Error(decoded.message);
    const kube = memoryKube();
    const outcome = await signAccount.handle(
      {
        log: createLogger({ level: "silent" }),
        event: decoded.event,
        kube: async () => kube,
        recorder: async () => ({ record: async () => {} }),
        now: () => new Date(),
      },
      tick,
    );
    expect(outcome).toMatchObject({ kind: "skipped", reason: "NatsAccount auth/app is gone" });
    expect(await ownerOfSecret(memoryKube([secretObject("tls", { "tls.crt": "x" })]), "auth", "tls")).toMatchObject({
      kind: "none",
    });
  });
});
