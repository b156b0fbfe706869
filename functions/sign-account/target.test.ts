import { describe, expect, it } from "@jest/globals";
import type { KubeObject } from "../../shared/kube/object.ts";
import { memoryKube } from "../../test/support/memory-kube.ts";
import { secretObject } from "../../test/fixtures/auth/objects.ts";
import { resolveTarget } from "./target.ts";

const secretEvent = (name: string) =>
  ({
    source: "apiserver",
    action: "delete",
    mode: "reference",
    ref: { apiVersion: "v1", kind: "Secret", namespace: "auth", name },
    snapshot: undefined,
  }) as const;

describe("which auth object an event is about", () => {
  it("finds the owner of a generated seed Secret by its annotation, and by its name once it is deleted", async () => {
    const annotated = secretObject("renamed", { seed: "x" }, { "auth.nats-operator.io/generated-for": "account/app" });
    expect(await resolveTarget(memoryKube([annotated]), secretEvent("renamed"))).toEqual({
      kind: "subject",
      subject: { kind: "NatsAccount", namespace: "auth", name: "app" },
    });
    expect(await resolveTarget(memoryKube(), secretEvent("main-operator-identity"))).toMatchObject({
      subject: { kind: "NatsOperator", name: "main" },
    });
    expect(await resolveTarget(memoryKube(), secretEvent("sys-systemaccount-signing-1"))).toMatchObject({
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
    expect(await resolveTarget(memoryKube([owned]), secretEvent("custom"))).toMatchObject({
      subject: { kind: "NatsUser", name: "alice" },
    });
    expect(await resolveTarget(memoryKube(), secretEvent("alice-creds"))).toMatchObject({
      subject: { kind: "NatsUser", name: "alice" },
    });
  });

  it("follows a renewal tick to the account it names, and ignores other Secrets", async () => {
    const tick = {
      source: "ping",
      pingSource: undefined,
      work: { namespace: "auth", kind: "NatsAccount", name: "app" },
    } as const;
    expect(await resolveTarget(memoryKube(), tick)).toMatchObject({ subject: { kind: "NatsAccount", name: "app" } });
    expect(
      await resolveTarget(memoryKube([secretObject("tls", { "tls.crt": "x" })]), secretEvent("tls")),
    ).toMatchObject({
      kind: "none",
    });
  });
});
