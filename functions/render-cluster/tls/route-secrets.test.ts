import { describe, expect, it } from "@jest/globals";
import { X509Certificate } from "node:crypto";
import { type Kube, type KubeObject, KubeRequestError, type ObjectKey } from "../../../shared/kube/index.ts";
import { demoCluster } from "../../../test/fixtures/cluster/clusters.ts";
import {
  type Cluster,
  readRouteSecrets,
  type SecretObject,
  judgeRouteTls,
  routeTlsForRender,
} from "../../cluster/index.ts";
import { issueRouteTls } from "./issue-route-tls.ts";

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

/** One delivery's route TLS phase: read the Secrets, judge them, issue what they lack, and judge again for the render. */
async function routeTls(kube: Kube, cluster: Cluster, now: Date) {
  const secrets = await readRouteSecrets(kube, cluster);
  const order = judgeRouteTls(secrets, cluster, now);
  const settled = order.kind === "issue" ? await issueRouteTls(kube, cluster, secrets, order, now, "test") : secrets;
  return routeTlsForRender(settled, cluster, now);
}

const pem = (object: SecretObject | undefined, key: string) =>
  Buffer.from(object?.data?.[key] ?? "", "base64").toString("utf8");

describe("route TLS Secrets", () => {
  it("issue one CA and leaves signed by it when deliveries race", async () => {
    const kube = secretStore();
    const cluster = demoCluster();
    const now = new Date("2026-12-01T00:00:00Z");
    const results = await Promise.all(Array.from({ length: 5 }, () => routeTls(kube, cluster, now)));
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
    const first = await routeTls(kube, cluster, now);
    const again = await routeTls(kube, cluster, new Date("2027-03-01T00:00:00Z"));
    expect(again.kind === "ready" && first.kind === "ready" && again.data["tls.crt"] === first.data["tls.crt"]).toBe(
      true,
    );
    expect(again.kind === "ready" && again.renewed).toBeFalsy();
    expect(again.kind === "ready" && again.certificate?.renewAt.toISOString().slice(0, 7)).toBe("2027-08");
    expect(again.kind === "ready" && again.certificate?.notAfter.toISOString().slice(0, 7)).toBe("2027-12");
  });

  it("renew a leaf once a third of its life remains, under the same CA, and say it was renewed", async () => {
    const kube = secretStore();
    const cluster = demoCluster();
    const first = await routeTls(kube, cluster, new Date("2026-12-01T00:00:00Z"));
    const ca = pem(kube.secrets.get("demo-routes-ca"), "tls.crt");
    const renewed = await routeTls(kube, cluster, new Date("2027-09-01T00:00:00Z"));
    expect(renewed).toMatchObject({ kind: "ready", renewed: true });
    expect(
      renewed.kind === "ready" && first.kind === "ready" && renewed.data["tls.crt"] !== first.data["tls.crt"],
    ).toBe(true);
    expect(pem(kube.secrets.get("demo-routes-ca"), "tls.crt")).toBe(ca);
    expect(pem(kube.secrets.get("demo-routes-tls"), "ca.crt")).toBe(ca);
  });

  it("wait for a named Secret until it holds the certificate, key and CA", async () => {
    const kube = secretStore();
    const cluster = demoCluster({ routes: { tls: { secretRef: { name: "mine" } } } });
    expect(await routeTls(kube, cluster, new Date())).toMatchObject({
      kind: "waiting",
    });
  });
});
