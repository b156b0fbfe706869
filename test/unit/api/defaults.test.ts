// Defaults the API server applies, as the API documents them.
import { describe, expect, it } from "@jest/globals";
import { KIND_DEFINITIONS } from "../../../shared/api/definitions.ts";
import { openApiSchema } from "../../../shared/api/codegen/crd.ts";
import { walkFields, type SchemaNode } from "../../../shared/api/codegen/schema-walk.ts";
import type { KindName } from "../../../shared/api/kinds.ts";

const defaultsOf = (kind: KindName): Record<string, unknown> => {
  const found: Record<string, unknown> = {};
  walkFields(openApiSchema(KIND_DEFINITIONS[kind]) as SchemaNode, ({ path, schema }) => {
    if (schema["default"] !== undefined) found[path] = schema["default"];
  });
  return found;
};

const EXPECTED: Record<KindName, Record<string, unknown>> = {
  NatsOperatorTrust: { "spec.operatorRef.name": undefined },
  NatsAccountTrust: {},
  NatsConnection: {
    "spec.credentials.secretKeyRef.key": "user.creds",
    "spec.tls.ca.secretKeyRef.key": "ca.crt",
  },
  NatsReferenceGrant: {},
  NatsCluster: {
    "spec.exporter.enabled": true,
    "spec.routes.tls.enabled": true,
    "spec.monitor.networkPolicy": true,
    "spec.auth.systemCredentials.secretKeyRef.key": "user.creds",
  },
  NatsOperator: {},
  NatsSystemAccount: {},
  NatsAccount: { "spec.jwtTTL": "48h" },
  NatsUser: { "spec.credentials.secretKeyRef.key": "user.creds" },
  NatsStream: {
    "spec.adoptionPolicy": "Never",
    "spec.terminalPolicy": "Hold",
    "spec.deletionPolicy": "Retain",
    "spec.onLoss": "Recreate",
  },
  NatsConsumer: { "spec.adoptionPolicy": "Never", "spec.terminalPolicy": "Hold", "spec.deletionPolicy": "Delete" },
  NatsKeyValue: { "spec.adoptionPolicy": "Never", "spec.terminalPolicy": "Hold", "spec.deletionPolicy": "Retain" },
  NatsObjectStore: { "spec.adoptionPolicy": "Never", "spec.terminalPolicy": "Hold", "spec.deletionPolicy": "Retain" },
  NatsBalancer: { "spec.moves": {}, "spec.moves.leader": true, "spec.moves.placement": false },
  NatsSystemBalancer: { "spec.moves": {}, "spec.moves.leader": true, "spec.moves.placement": false },
  NatsClusterEvacuation: {},
};

describe.each(Object.keys(EXPECTED) as KindName[])("%s defaults", (kind) => {
  it("are exactly the documented ones", () => {
    const expected = Object.fromEntries(Object.entries(EXPECTED[kind]).filter(([, v]) => v !== undefined));
    expect(defaultsOf(kind)).toEqual(expected);
  });
});
