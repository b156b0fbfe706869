// NatsConnection: how a NATS cluster is reached and as whom.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf } from "../common/fields.ts";
import { Credentials, CertificateAuthority } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import { resourceSchema, readyColumns, ageColumn, type KindDefinition } from "../common/kind-definition.ts";

export const NatsConnectionSpec = Struct(
  {
    servers: ListOf(
      NonEmptyText("A NATS URL such as nats://host:4222 or tls://host:4222."),
      "NATS URLs to connect to; a NatsCluster publishes its own in status.endpoints.client.",
      { minItems: 1, listType: "atomic" },
    ),
    tls: Optional(
      Struct(
        { ca: Optional(CertificateAuthority("CA bundle that verifies the servers' certificates.")) },
        "Client-side TLS settings.",
      ),
    ),
    credentials: Optional(
      Credentials(
        "Credentials file to connect with; it decides the account. Without it the client lands wherever " +
          "the servers put unauthenticated clients.",
      ),
    ),
  },
  "Where the NATS servers are and which credentials to present.",
);
export type NatsConnectionSpec = Static<typeof NatsConnectionSpec>;

export const NatsConnectionStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready")),
  },
  "Observed state of the connection.",
);
export type NatsConnectionStatus = Static<typeof NatsConnectionStatus>;

export const NatsConnectionResource = resourceSchema(KINDS.NatsConnection, NatsConnectionSpec, NatsConnectionStatus);
export type NatsConnection = Static<typeof NatsConnectionResource>;

export const natsConnectionDefinition: KindDefinition = {
  info: KINDS.NatsConnection,
  description:
    "How a NATS cluster, managed or not, is reached and as whom; JetStream objects, balancers and leaf remotes use it.",
  spec: NatsConnectionSpec,
  status: NatsConnectionStatus,
  columns: [...readyColumns(), ageColumn()],
};
