// The kind registry: names, plurals and groups as other code looks them up.
import { describe, expect, it } from "@jest/globals";
import { KINDS, KIND_NAMES, kindOf, pluralOf } from "../../../shared/api/kinds.ts";
import { API_GROUPS } from "../../../shared/api/groups.ts";
import { KIND_DEFINITIONS } from "../../../shared/api/definitions.ts";

describe("kind registry", () => {
  it("holds the 16 kinds in their groups", () => {
    const byGroup = (group: string) => KIND_NAMES.filter((k) => KINDS[k].group === group).sort();
    expect(byGroup(API_GROUPS.core)).toEqual([
      "NatsAccountTrust",
      "NatsConnection",
      "NatsOperatorTrust",
      "NatsReferenceGrant",
    ]);
    expect(byGroup(API_GROUPS.cluster)).toEqual(["NatsCluster"]);
    expect(byGroup(API_GROUPS.auth)).toEqual(["NatsAccount", "NatsOperator", "NatsSystemAccount", "NatsUser"]);
    expect(byGroup(API_GROUPS.jetstream)).toEqual([
      "NatsBalancer",
      "NatsClusterEvacuation",
      "NatsConsumer",
      "NatsKeyValue",
      "NatsObjectStore",
      "NatsStream",
      "NatsSystemBalancer",
    ]);
  });

  it("serves everything at v1beta1 with a status subresource except on NatsReferenceGrant", () => {
    for (const kind of KIND_NAMES) {
      expect(KINDS[kind].version).toBe("v1beta1");
      expect(KINDS[kind].hasStatus).toBe(kind !== "NatsReferenceGrant");
      expect(KIND_DEFINITIONS[kind].status !== undefined).toBe(KINDS[kind].hasStatus);
    }
  });

  it("maps apiVersion and kind to the plural", () => {
    expect(pluralOf("cluster.nats-operator.io/v1beta1", "NatsCluster")).toBe("natsclusters");
    expect(pluralOf("jetstream.nats-operator.io/v1beta1", "NatsClusterEvacuation")).toBe("natsclusterevacuations");
    expect(pluralOf("nats-operator.io/v1beta1", "NatsReferenceGrant")).toBe("natsreferencegrants");
    expect(pluralOf("cluster.nats.mikluko.io/v1beta1", "NatsCluster")).toBeUndefined();
    expect(kindOf("v1", "ConfigMap")).toBeUndefined();
  });

  it("puts every kind in the nats category and one per group, with unique short names", () => {
    const shortNames = KIND_NAMES.flatMap((k) => KINDS[k].shortNames);
    expect(new Set(shortNames).size).toBe(shortNames.length);
    for (const kind of KIND_NAMES) expect(KINDS[kind].categories).toEqual(["nats", `nats-${KINDS[kind].groupKey}`]);
  });
});
