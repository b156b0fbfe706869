// NatsOperatorTrust: the trust roots (operator JWT and system account JWT) a NatsCluster boots from.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, Text } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import {
  resourceSchema,
  readyColumns,
  ageColumn,
  selectableFields,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { SELECTABLE_FIELDS } from "../selectable-fields.ts";

export const NatsOperatorTrustSpec = Struct(
  {
    operatorRef: Optional(
      ObjectReference(
        "NatsOperator",
        "Reference form: the NatsOperator whose signed operator and system account JWTs are mirrored into status.",
      ),
    ),
    operatorJWT: Optional(NonEmptyText("Literal form: the NATS operator JWT, signed elsewhere.")),
    systemAccountJWT: Optional(
      NonEmptyText("Literal form: the system account JWT the operator JWT names; set together with operatorJWT."),
    ),
  },
  "Where the trust roots come from: a NatsOperator (operatorRef), or both JWTs given literally.",
  {
    rules: [
      {
        rule: "has(self.operatorRef) != (has(self.operatorJWT) || has(self.systemAccountJWT))",
        message: "set exactly one of operatorRef and the literal operatorJWT and systemAccountJWT",
      },
      {
        rule: "has(self.operatorJWT) == has(self.systemAccountJWT)",
        message: "operatorJWT and systemAccountJWT are set together",
      },
    ],
  },
);
export type NatsOperatorTrustSpec = Static<typeof NatsOperatorTrustSpec>;

export const NatsOperatorTrustStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready and ReferencesResolved; written for the reference form only")),
    operatorJWT: Optional(Text("Operator JWT mirrored from the referenced NatsOperator; cleared while not Ready.")),
    systemAccountJWT: Optional(
      Text("System account JWT mirrored from the referenced NatsOperator; cleared while not Ready."),
    ),
  },
  "Observed state; the literal form gets no status.",
);
export type NatsOperatorTrustStatus = Static<typeof NatsOperatorTrustStatus>;

export const NatsOperatorTrustResource = resourceSchema(
  KINDS.NatsOperatorTrust,
  NatsOperatorTrustSpec,
  NatsOperatorTrustStatus,
);
export type NatsOperatorTrust = Static<typeof NatsOperatorTrustResource>;

export const natsOperatorTrustDefinition: KindDefinition = {
  info: KINDS.NatsOperatorTrust,
  description:
    "Trust roots a NatsCluster boots from: a NATS operator JWT and its system account JWT, " +
    "either mirrored from a NatsOperator or given literally.",
  spec: NatsOperatorTrustSpec,
  status: NatsOperatorTrustStatus,
  columns: [...readyColumns(), ageColumn()],
  selectableFields: selectableFields(SELECTABLE_FIELDS.NatsOperatorTrust),
};
