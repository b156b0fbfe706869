// What `kubectl explain` and `kubectl get nats` read from the API server: the
// OpenAPI v3 document carries our field descriptions, and discovery carries
// categories and short names.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { closeSession, openSession, type ApiSession } from "./support/api.ts";
import { rawRequest } from "./support/raw-client.ts";
import { KINDS, KIND_NAMES } from "../../../shared/api/kinds.ts";
import { API_GROUPS, API_VERSION } from "../../../shared/api/groups.ts";
import { ClusterJetStream } from "../../../shared/api/cluster/nats-cluster-spec.ts";

let session: ApiSession | undefined;
beforeAll(async () => {
  session = await openSession("api-explain");
}, 120_000);
afterAll(async () => {
  await closeSession(session);
});

type Schema = { description?: string; properties?: Record<string, Schema>; allOf?: Schema[] };

const getJson = async (path: string): Promise<unknown> => {
  if (!session) throw new Error("no session");
  const res = await rawRequest(session.kc, "GET", path);
  expect(res.status).toBe(200);
  return JSON.parse(res.body) as unknown;
};

/** A property of a published schema; the server may wrap a described property in allOf. */
const property = (schema: Schema | undefined, name: string): Schema | undefined => {
  const direct = schema?.properties?.[name];
  if (direct) return direct;
  return schema?.allOf?.map((s) => property(s, name)).find((s) => s !== undefined);
};

describe("OpenAPI v3", () => {
  it("describes natscluster.spec.jetstream and its fields", async () => {
    const doc = (await getJson(`/openapi/v3/apis/${API_GROUPS.cluster}/${API_VERSION}`)) as {
      components: { schemas: Record<string, Schema> };
    };
    const key = Object.keys(doc.components.schemas).find((k) => k.endsWith(".NatsCluster"));
    expect(key).toBeDefined();
    const jetstream = property(property(doc.components.schemas[key ?? ""], "spec"), "jetstream");
    expect(jetstream?.description).toBe((ClusterJetStream as { description?: string }).description);
    for (const field of ["domain", "limits", "volumeClaimTemplate"] as const) {
      const expected = (ClusterJetStream.properties[field] as { description?: string }).description;
      expect([field, property(jetstream, field)?.description]).toEqual([field, expected]);
    }
  });
});

describe("discovery", () => {
  it.each(Object.values(API_GROUPS))("lists the %s kinds with categories and short names", async (group) => {
    const list = (await getJson(`/apis/${group}/${API_VERSION}`)) as {
      resources: { name: string; kind: string; categories?: string[]; shortNames?: string[] }[];
    };
    for (const kind of KIND_NAMES.filter((k) => KINDS[k].group === group)) {
      const resource = list.resources.find((r) => r.name === KINDS[kind].plural);
      expect(resource).toEqual(
        expect.objectContaining({
          kind,
          categories: [...KINDS[kind].categories],
          shortNames: [...KINDS[kind].shortNames],
        }),
      );
      const status = list.resources.find((r) => r.name === `${KINDS[kind].plural}/status`);
      expect(status !== undefined).toBe(KINDS[kind].hasStatus);
    }
  });
});
