// NatsUser: a user of an account, with its permissions and credentials.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, OneOf, ListOf, Text } from "../common/fields.ts";
import { Time } from "../common/formats.ts";
import { Credentials } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import {
  resourceSchema,
  readyColumns,
  ageColumn,
  selectableFields,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { SELECTABLE_FIELDS } from "../selectable-fields.ts";
import { AccountReference } from "./account-reference.ts";
import { Permissions, ConnectionTypes } from "./permissions.ts";

export const USER_PRESETS = [
  "cluster-controller",
  "jetstream-controller",
  "auth-controller",
  "readonly",
  "leafnode",
] as const;
export type UserPreset = (typeof USER_PRESETS)[number];
const CONTROLLER_PRESETS = ["cluster-controller", "jetstream-controller", "auth-controller"];

const celList = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(", ")}]`;

export const NatsUserSpec = Struct(
  {
    accountRef: AccountReference("The account the user belongs to; cannot change.", {
      rules: [{ rule: "self == oldSelf", message: "accountRef is immutable" }],
    }),
    permissions: Optional(Permissions("What the user may publish and subscribe to.")),
    connectionTypes: Optional(ConnectionTypes("Connection types the user may use; empty allows any.")),
    preset: Optional(
      OneOf(
        USER_PRESETS,
        "A named permission set in place of permissions and connectionTypes. Controller presets are for system " +
          "account users, readonly for account users, leafnode for leaf connections with full access.",
      ),
    ),
    role: Optional(NonEmptyText("Sign the user with the account's scoped signing key of this role.")),
    publicKey: Optional(
      NonEmptyText("User public key whose seed the client holds; the JWT goes to status.jwt and no Secret is written."),
    ),
    credentials: Optional(
      Credentials("Where the credentials file is written; Secret <user>-creds, key user.creds, when omitted."),
    ),
  },
  "The user's account, permissions and credentials.",
  {
    rules: [
      {
        rule: "!(has(self.preset) && has(self.permissions))",
        message: "preset and permissions are mutually exclusive",
      },
      {
        rule: "!(has(self.preset) && has(self.connectionTypes))",
        message: "preset and connectionTypes are mutually exclusive",
      },
      {
        rule: "!(has(self.publicKey) && has(self.credentials))",
        message: "publicKey and credentials are mutually exclusive",
      },
      {
        rule: `!has(self.preset) || !(self.preset in ${celList(CONTROLLER_PRESETS)}) || self.accountRef.kind == 'NatsSystemAccount'`,
        message: "a controller preset is for a NatsSystemAccount user",
      },
      {
        rule: "!has(self.preset) || self.preset != 'readonly' || self.accountRef.kind == 'NatsAccount'",
        message: "the readonly preset is for a NatsAccount user",
      },
      {
        rule: "!has(self.role) || !(has(self.permissions) || has(self.connectionTypes) || has(self.preset))",
        message: "role excludes permissions, connectionTypes and preset",
      },
    ],
  },
);
export type NatsUserSpec = Static<typeof NatsUserSpec>;

export const NatsUserStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready, ReferencesResolved and Distributed")),
    publicKey: Optional(Text("User public key.")),
    jwt: Optional(Text("User JWT, for a user with its own publicKey.")),
    replacedKeys: Optional(
      ListOf(
        Struct(
          {
            publicKey: NonEmptyText("A key the user held before."),
            at: Time("Revoked in the account from this time."),
          },
          "A replaced user key.",
        ),
        "Keys held before the current one, until the account JWT carries their revocation.",
        { listType: "map", listMapKeys: ["publicKey"] },
      ),
    ),
  },
  "Observed state of the user.",
);
export type NatsUserStatus = Static<typeof NatsUserStatus>;

export const NatsUserResource = resourceSchema(KINDS.NatsUser, NatsUserSpec, NatsUserStatus);
export type NatsUser = Static<typeof NatsUserResource>;

export const natsUserDefinition: KindDefinition = {
  info: KINDS.NatsUser,
  description: "A user of a NatsAccount or NatsSystemAccount, signed by the account's keys.",
  spec: NatsUserSpec,
  status: NatsUserStatus,
  columns: [
    { name: "Account", type: "string", jsonPath: ".spec.accountRef.name", description: "The user's account." },
    ...readyColumns(),
    ageColumn(),
  ],
  selectableFields: selectableFields(SELECTABLE_FIELDS.NatsUser),
};
