import { describe, expect, it } from "@jest/globals";
import type { Kube } from "../kube/client.ts";
import { readConnectionSettings } from "./connection-settings.ts";

const creds = [
  "-----BEGIN NATS USER JWT-----",
  "eyJ0eXAiOiJKV1QifQ.e30.sig",
  "------END NATS USER JWT------",
  "",
  "-----BEGIN USER NKEY SEED-----",
  "SUAEXAMPLESEED",
  "------END USER NKEY SEED------",
].join("\n");
const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const b64 = (s: string) => Buffer.from(s).toString("base64");

function kubeWith(secrets: Record<string, Record<string, string>>): Kube {
  return {
    get: async (key: { name: string }) =>
      secrets[key.name]
        ? { apiVersion: "v1", kind: "Secret", metadata: { name: key.name }, data: secrets[key.name] }
        : undefined,
  } as unknown as Kube;
}

describe("connection settings from Secrets", () => {
  it("reads creds under the default key user.creds and the CA under ca.crt", async () => {
    const kube = kubeWith({ creds: { "user.creds": b64(creds) }, ca: { "ca.crt": b64(ca) } });
    const result = await readConnectionSettings(kube, "ns", {
      servers: ["tls://nats:4222"],
      credentials: { secretKeyRef: { name: "creds" } },
      tls: { ca: { secretKeyRef: { name: "ca" } } },
    });
    expect(result.ok && result.settings).toMatchObject({ servers: ["tls://nats:4222"], creds, ca });
  });

  it("honours a named key", async () => {
    const result = await readConnectionSettings(kubeWith({ s: { "nats.creds": b64(creds) } }), "ns", {
      servers: ["nats://n:4222"],
      credentials: { secretKeyRef: { name: "s", key: "nats.creds" } },
    });
    expect(result.ok).toBe(true);
  });

  it("says SecretNotFound for a missing Secret and InvalidSecret for a missing key or bad content", async () => {
    const spec = (name: string) => ({ servers: ["nats://n:4222"], credentials: { secretKeyRef: { name } } });
    const kube = kubeWith({ empty: {}, junk: { "user.creds": b64("hello") } });
    expect(await readConnectionSettings(kube, "ns", spec("absent"))).toMatchObject({
      ok: false,
      reason: "SecretNotFound",
    });
    expect(await readConnectionSettings(kube, "ns", spec("empty"))).toMatchObject({
      ok: false,
      reason: "InvalidSecret",
      message: "Secret ns/empty has no key user.creds",
    });
    expect(await readConnectionSettings(kube, "ns", spec("junk"))).toMatchObject({
      ok: false,
      reason: "InvalidSecret",
    });
  });

  it("changes the fingerprint when a Secret's content changes", async () => {
    const spec = { servers: ["nats://n:4222"], credentials: { secretKeyRef: { name: "s" } } };
    const a = await readConnectionSettings(kubeWith({ s: { "user.creds": b64(creds) } }), "ns", spec);
    const b = await readConnectionSettings(
      kubeWith({ s: { "user.creds": b64(creds.replace("SUAEXAMPLESEED", "SUAOTHER")) } }),
      "ns",
      spec,
    );
    expect(a.ok && b.ok && a.settings.fingerprint !== b.settings.fingerprint).toBe(true);
  });
});
