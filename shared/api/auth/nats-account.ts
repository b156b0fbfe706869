// NatsAccount: an account signed by a NatsOperator.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf, Text } from "../common/fields.ts";
import { Duration, Time } from "../common/formats.ts";
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
import { Keys, offlineIdentityRules } from "./keys.ts";
import { Adoption, Distribution, Revocations, distributionColumns } from "./auth-status.ts";
import { AccountLimits } from "./account-limits.ts";
import { Export, Import, ImportStatus, ExportStatus } from "./exports-imports.ts";

export const DEFAULT_JWT_TTL = "48h";

export const NatsAccountSpec = Struct(
  {
    operatorRef: ObjectReference(
      "NatsOperator",
      "The operator that signs the account; in another namespace it needs a grant there (admission).",
    ),
    keys: Optional(Keys),
    publicKey: Optional(NonEmptyText("Identity public key held offline; needs a signing key.")),
    jwtTTL: Optional(
      Duration("Lifetime of the account JWT; it is re-signed at half of it. 0s signs JWTs that never expire.", {
        default: DEFAULT_JWT_TTL,
      }),
    ),
    limits: Optional(AccountLimits),
    exports: Optional(
      ListOf(Export, "What the account offers other accounts.", { maxItems: 1000, listType: "atomic" }),
    ),
    imports: Optional(ListOf(Import, "What the account takes from other accounts.", { listType: "atomic" })),
    adoption: Optional(Adoption),
  },
  "The account's operator, keys, limits, exports and imports.",
  { rules: offlineIdentityRules("publicKey") },
);
export type NatsAccountSpec = Static<typeof NatsAccountSpec>;

export const NatsAccountStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready, ReferencesResolved, Distributed and RevocationsUnrecovered")),
    publicKey: Optional(Text("Identity public key (starts with A); recorded only once admitted.")),
    jwt: Optional(Text("Account JWT; emptied when no longer admitted.")),
    jwtHash: Optional(Text("Digest of the current JWT.")),
    jwtExpires: Optional(
      Time("When the current JWT expires (its exp claim); absent for a JWT that never expires (jwtTTL 0s)."),
    ),
    distribution: Optional(Distribution),
    revocations: Optional(Revocations()),
    imports: Optional(ListOf(ImportStatus, "Imports as resolved.", { listType: "atomic" })),
    exports: Optional(
      ListOf(ExportStatus, "Activation tokens per export.", { listType: "map", listMapKeys: ["name"] }),
    ),
  },
  "Observed state of the account.",
);
export type NatsAccountStatus = Static<typeof NatsAccountStatus>;

export const NatsAccountResource = resourceSchema(KINDS.NatsAccount, NatsAccountSpec, NatsAccountStatus);
export type NatsAccount = Static<typeof NatsAccountResource>;

export const natsAccountDefinition: KindDefinition = {
  info: KINDS.NatsAccount,
  description: "A NATS account signed by a NatsOperator, with its limits, exports and imports.",
  spec: NatsAccountSpec,
  status: NatsAccountStatus,
  columns: [...readyColumns(), ...distributionColumns(), ageColumn()],
  selectableFields: selectableFields(SELECTABLE_FIELDS.NatsAccount),
};
