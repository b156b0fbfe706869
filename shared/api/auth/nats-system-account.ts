// NatsSystemAccount: the system account of a NatsOperator.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, Text } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import { resourceSchema, readyColumns, ageColumn, type KindDefinition } from "../common/kind-definition.ts";
import { Keys, offlineIdentityRules } from "./keys.ts";
import { Adoption, Distribution, Revocations, distributionColumns } from "./auth-status.ts";

export const NatsSystemAccountSpec = Struct(
  {
    operatorRef: ObjectReference("NatsOperator", "The operator; it signs this account only while it names it."),
    keys: Optional(Keys),
    publicKey: Optional(NonEmptyText("Identity public key held offline; needs a signing key.")),
    adoption: Optional(Adoption),
  },
  "The system account's keys and operator.",
  { rules: offlineIdentityRules("publicKey") },
);
export type NatsSystemAccountSpec = Static<typeof NatsSystemAccountSpec>;

export const NatsSystemAccountStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready, ReferencesResolved, Distributed and RevocationsUnrecovered")),
    publicKey: Optional(Text("Identity public key (starts with A).")),
    jwtHash: Optional(Text("Digest of the current JWT; the JWT itself is in the NatsOperator's status.")),
    distribution: Optional(Distribution),
    revocations: Optional(Revocations()),
  },
  "Observed state of the system account.",
);
export type NatsSystemAccountStatus = Static<typeof NatsSystemAccountStatus>;

export const NatsSystemAccountResource = resourceSchema(
  KINDS.NatsSystemAccount,
  NatsSystemAccountSpec,
  NatsSystemAccountStatus,
);
export type NatsSystemAccount = Static<typeof NatsSystemAccountResource>;

export const natsSystemAccountDefinition: KindDefinition = {
  info: KINDS.NatsSystemAccount,
  description: "The system account of a NatsOperator; signed only while a NatsOperator names it in systemAccountRef.",
  spec: NatsSystemAccountSpec,
  status: NatsSystemAccountStatus,
  columns: [...readyColumns(), ...distributionColumns(), ageColumn()],
};
