import { describe, expect, it } from "@jest/globals";
import { X509Certificate } from "node:crypto";
import type { Kube } from "../../../shared/kube/client.ts";
import { KubeRequestError } from "../../../shared/kube/errors.ts";
import type { KubeObject, ObjectKey } from "../../../shared/kube/object.ts";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import { routeTlsPlan } from "../../cluster/index.ts";
import { ensureRouteTls, type SecretObject } from "./route-secrets.ts";

/** Secrets in memory; `create` refuses an existing name like the API server, and every call yields first. */
function secretStore(): Kube & { secrets: Map<string, SecretObject> } {
  const secrets = new Map<string, SecretObject>();
  const tick = () => new Promise((r) => setImmediate(r));
  const store = {
    secrets,
    async get<T extends KubeObject>(key: ObjectKey) {
      await tick();
      return secrets.get(key.name) as T | undefined;
    },
    async create<T extends KubeObject>(object: T) {
      await tick();
      if (secrets.has(object.metadata.name)) throw new KubeRequestError(409, "AlreadyExists", "exists");
      secrets.set(object.metadata.name, object as SecretObject);
      return object;
    },
    async apply<T extends KubeObject>(object: T) {
      await tick();
      secrets.set(object.metadata.name, object as SecretObject);
      return object;
    },
  };
  return store as unknown as Kube & { secrets: Map<string, SecretObject> };
}

const pem = (object: SecretObject | undefined, key: string) =>
  Buffer.from(object?.data?.[key] ?? "", "base64").toString("utf8");

describe("route TLS Secrets", () => {
  it("issue one CA and leaves signed by it when deliveries race", async () => {
    const kube = secretStore();
    const cluster = demoCluster();
    const now = new Date("2026-12-01T00:00:00Z");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ensureRouteTls(kube, cluster, routeTlsPlan(cluster), now, "test")),
    );
    expect(results.every((r) => r.kind === "ready")).toBe(true);
    const ca = new X509Certificate(pem(kube.secrets.get("demo-routes-ca"), "tls.crt"));
    const leafSecret = kube.secrets.get("demo-routes-tls");
    expect(pem(leafSecret, "ca.crt")).toBe(pem(kube.secrets.get("demo-routes-ca"), "tls.crt"));
    expect(new X509Certificate(pem(leafSecret, "tls.crt")).verify(ca.publicKey)).toBe(true);
    for (const result of results) {
      if (result.kind !== "ready") continue;
      expect(
        new X509Certificate(Buffer.from(result.data["tls.crt"] ?? "", "base64").toString("utf8")).verify(ca.publicKey),
      ).toBe(true);
    }
  });

  it("keep a valid leaf and say when it is due", async () => {
    const kube = secretStore();
    const cluster = demoCluster();
    const now = new Date("2026-12-01T00:00:00Z");
    const first = await ensureRouteTls(kube, cluster, routeTlsPlan(cluster), now, "test");
    const again = await ensureRouteTls(kube, cluster, routeTlsPlan(cluster), new Date("2027-03-01T00:00:00Z"), "test");
    expect(again.kind === "ready" && first.kind === "ready" && again.data["tls.crt"] === first.data["tls.crt"]).toBe(
      true,
    );
    expect(again.kind === "ready" && again.renewed).toBeFalsy();
    expect(again.kind === "ready" && again.renewAt?.toISOString().slice(0, 7)).toBe("2027-08");
  });

  it("wait for a named Secret until it holds the certificate, key and CA", async () => {
    const kube = secretStore();
    const cluster = demoCluster({ routes: { tls: { secretRef: { name: "mine" } } } });
    expect(await ensureRouteTls(kube, cluster, routeTlsPlan(cluster), new Date(), "test")).toMatchObject({
      kind: "waiting",
    });
  });
});
