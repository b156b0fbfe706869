// Key material of NATS operators and accounts: adopted seeds and signing keys.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf } from "../common/fields.ts";
import { NAME_MAX_LENGTH } from "../common/references.ts";
import { Permissions, ConnectionTypes, UserLimits } from "./permissions.ts";

const SeedSecretKeySelector = Struct(
  {
    name: NonEmptyText("Name of the Secret, in the object's namespace.", { maxLength: NAME_MAX_LENGTH }),
    key: NonEmptyText("Key in the Secret holding the nkey seed.", { maxLength: NAME_MAX_LENGTH }),
  },
  "A Secret key holding an nkey seed.",
);

const SigningKeyScope = Struct(
  {
    role: NonEmptyText("Role name; a NatsUser whose spec.role equals it is signed by this key."),
    permissions: Optional(Permissions("Permissions imposed on every user the key signs.")),
    connectionTypes: Optional(
      ConnectionTypes("Connection types every user of the key is limited to; empty allows any."),
    ),
    limits: Optional(UserLimits("Limits imposed on every user of the key.")),
  },
  "Makes an account signing key a scoped key: it signs only users naming its role, never activation tokens. " +
    "Operator signing keys take no scope.",
);

const SigningKey = Struct(
  {
    name: NonEmptyText("Identifies the key in the list."),
    secretKeyRef: SeedSecretKeySelector,
    retiring: Optional(
      Flag(
        "Keep the key listed (what it signed stays valid) but sign nothing new with it; " +
          "remove it once RetiringKeysInUse is False.",
      ),
    ),
    scope: Optional(SigningKeyScope),
  },
  "A signing key adopted from a Secret.",
);

export const Keys = Struct(
  {
    identity: Optional(Struct({ secretKeyRef: SeedSecretKeySelector }, "Adopt an existing identity seed.")),
    signing: Optional(
      ListOf(SigningKey, "Signing keys; when omitted the controller generates one.", {
        listType: "map",
        listMapKeys: ["name"],
      }),
    ),
  },
  "Seeds to adopt; keys left out are generated into Secrets that outlive the object.",
);
export type Keys = Static<typeof Keys>;

const hasIdentity = "has(self.keys) && has(self.keys.identity)";
const hasSigningKey = "has(self.keys) && has(self.keys.signing) && size(self.keys.signing) > 0";

/** Rules for an object whose identity key may be held offline (given as `field`). */
export const offlineIdentityRules = (field: "jwt" | "publicKey") => [
  {
    rule: `!(has(self.${field}) && ${hasIdentity})`,
    message: `${field} and keys.identity are mutually exclusive`,
  },
  {
    rule: `!has(self.${field}) || (${hasSigningKey})`,
    message: `${field} requires at least one signing key`,
  },
];
