// NatsAccountTrust: an account a leaf remote binds to, or that servers preload.
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

export const NatsAccountTrustSpec = Struct(
  {
    accountRef: Optional(
      ObjectReference(
        "NatsAccount",
        "Reference form: the NatsAccount whose public key and JWT are mirrored into status.",
      ),
    ),
    publicKey: Optional(NonEmptyText("Literal form: the account's public key (starts with A).")),
    jwt: Optional(
      NonEmptyText("Literal form: the account JWT a leaf or the servers preload; set only beside publicKey."),
    ),
  },
  "Which account is trusted: a NatsAccount (accountRef) or a literal public key with an optional JWT.",
  {
    rules: [
      { rule: "has(self.accountRef) != has(self.publicKey)", message: "set exactly one of accountRef and publicKey" },
      { rule: "!has(self.jwt) || has(self.publicKey)", message: "jwt is set only beside publicKey" },
    ],
  },
);
export type NatsAccountTrustSpec = Static<typeof NatsAccountTrustSpec>;

export const NatsAccountTrustStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready and ReferencesResolved; written for the reference form only")),
    publicKey: Optional(Text("Public key mirrored from the referenced NatsAccount.")),
    jwt: Optional(Text("Account JWT mirrored from the referenced NatsAccount.")),
  },
  "Observed state; the literal form gets no status.",
);
export type NatsAccountTrustStatus = Static<typeof NatsAccountTrustStatus>;

export const NatsAccountTrustResource = resourceSchema(
  KINDS.NatsAccountTrust,
  NatsAccountTrustSpec,
  NatsAccountTrustStatus,
);
export type NatsAccountTrust = Static<typeof NatsAccountTrustResource>;

export const natsAccountTrustDefinition: KindDefinition = {
  info: KINDS.NatsAccountTrust,
  description:
    "An account that leaf remotes bind to or that servers preload, mirrored from a NatsAccount or given literally.",
  spec: NatsAccountTrustSpec,
  status: NatsAccountTrustStatus,
  columns: [...readyColumns(), ageColumn()],
  selectableFields: selectableFields(SELECTABLE_FIELDS.NatsAccountTrust),
};
