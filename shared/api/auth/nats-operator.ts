// NatsOperator: a NATS operator whose keys sign account JWTs.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf, Text } from "../common/fields.ts";
import { Time } from "../common/formats.ts";
import { ObjectReference } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import { resourceSchema, readyColumns, ageColumn, type KindDefinition } from "../common/kind-definition.ts";
import { Keys, offlineIdentityRules } from "./keys.ts";
import { Revocations } from "./auth-status.ts";

export const NatsOperatorSpec = Struct(
  {
    keys: Optional(Keys),
    jwt: Optional(
      NonEmptyText("Operator JWT signed elsewhere, so the identity key stays offline; needs a signing key."),
    ),
    systemAccountRef: ObjectReference("NatsSystemAccount", "The system account the operator JWT names."),
  },
  "The operator's keys and its system account.",
  { rules: offlineIdentityRules("jwt") },
);
export type NatsOperatorSpec = Static<typeof NatsOperatorSpec>;

export const NatsOperatorStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(
      Conditions("Ready, ReferencesResolved, RetiringKeysInUse, RevocationsUnrecovered and SigningKeyUntrusted"),
    ),
    publicKey: Optional(Text("Identity public key (starts with O).")),
    signingKeys: Optional(ListOf(Text("A public key."), "Signing public keys.", { listType: "atomic" })),
    seedSecrets: Optional(
      Struct(
        {
          identity: Optional(Text("Secret holding the generated identity seed.")),
          signing: Optional(
            ListOf(Text("A Secret name."), "Secrets holding generated signing seeds.", { listType: "atomic" }),
          ),
        },
        "Names of the Secrets holding generated seeds.",
      ),
    ),
    jwt: Optional(Text("Operator JWT.")),
    systemAccount: Optional(
      Struct(
        {
          name: Optional(Text("Name of the NatsSystemAccount.")),
          publicKey: Optional(Text("System account public key.")),
          jwt: Optional(Text("System account JWT, published here for trusts to mirror.")),
          revocations: Optional(Revocations()),
        },
        "The system account, as signed by this operator.",
      ),
    ),
    deletedAccounts: Optional(
      ListOf(
        Struct(
          {
            publicKey: NonEmptyText("Public key of the deleted account."),
            expires: Optional(Time("When the account's last JWT expires; never when omitted.")),
          },
          "An account whose JWT servers might still hold.",
        ),
        "Accounts deleted or no longer admitted; the delete is re-sent to joining servers until expiry.",
        { listType: "map", listMapKeys: ["publicKey"] },
      ),
    ),
  },
  "Observed state of the operator.",
);
export type NatsOperatorStatus = Static<typeof NatsOperatorStatus>;

export const NatsOperatorResource = resourceSchema(KINDS.NatsOperator, NatsOperatorSpec, NatsOperatorStatus);
export type NatsOperator = Static<typeof NatsOperatorResource>;

export const natsOperatorDefinition: KindDefinition = {
  info: KINDS.NatsOperator,
  description:
    "A NATS operator: identity and signing keys (adopted or generated) that sign its system account and accounts.",
  spec: NatsOperatorSpec,
  status: NatsOperatorStatus,
  columns: [...readyColumns(), ageColumn()],
};
