// What an account offers other accounts (exports) and takes from them (imports).
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, OneOf, ListOf, Flag } from "../common/fields.ts";
import { objectReferenceProperties, NAME_MAX_LENGTH } from "../common/references.ts";
import { ACCOUNT_KINDS, AccountReference } from "./account-reference.ts";

const EXPORT_TYPES = ["Stream", "Service"] as const;

const Importer = Struct(
  {
    kind: Optional(OneOf(ACCOUNT_KINDS, "Kind of the importing account.")),
    ...objectReferenceProperties("importing account"),
    name: Optional(NonEmptyText("Name of the importing account.", { maxLength: NAME_MAX_LENGTH })),
    publicKey: Optional(NonEmptyText("Public key of an importing account that has no resource here.")),
  },
  "An account allowed to import a private export; it gets an activation token.",
  {
    rules: [
      {
        rule: "has(self.publicKey) != (has(self.kind) && has(self.name))",
        message: "an importer sets either kind and name, or publicKey",
      },
    ],
  },
);

const exportFields = ["name", "type", "subject", "responseType", "access", "importers"];

export const Export = Struct(
  {
    preset: Optional(
      OneOf(
        ["jetstream-stepdown"],
        "A predefined export: jetstream-stepdown exports the stream and consumer leader-stepdown services " +
          "and imports them into the system account, so balancers can move leaders.",
      ),
    ),
    name: Optional(NonEmptyText("Name imports refer to.", { maxLength: 253 })),
    type: Optional(OneOf(EXPORT_TYPES, "Whether a message stream or a request/reply service is exported.")),
    subject: Optional(NonEmptyText("Exported subject; wildcards allowed.")),
    responseType: Optional(
      OneOf(
        ["Singleton", "Stream", "Chunked"],
        "How a service responds; Singleton when omitted. Service exports only.",
      ),
    ),
    access: Optional(
      OneOf(["Public", "Private"], "Who may import: Public (when omitted) or only the listed importers."),
    ),
    importers: Optional(
      ListOf(Importer, "Accounts allowed to import a Private export.", { listType: "atomic", maxItems: 1000 }),
    ),
  },
  "An export: either a preset alone, or a name, type and subject.",
  {
    rules: [
      {
        rule:
          "has(self.preset) ? (" +
          exportFields.map((f) => `!has(self.${f})`).join(" && ") +
          ") : (has(self.name) && has(self.type) && has(self.subject))",
        message: "an export sets either preset alone, or name, type and subject",
      },
      {
        rule: "!has(self.responseType) || (has(self.type) && self.type == 'Service')",
        message: "responseType is set only on a Service export",
      },
      {
        rule: "!has(self.importers) || size(self.importers) == 0 || (has(self.access) && self.access == 'Private')",
        message: "importers are listed only on a Private export",
      },
    ],
  },
);
export type Export = Static<typeof Export>;

export const Import = Struct(
  {
    accountRef: Optional(
      AccountReference(
        "Exporting account: a NatsAccount, or the NatsSystemAccount of the same operator for its monitoring exports.",
      ),
    ),
    export: Optional(NonEmptyText("Name of the export, with accountRef.", { maxLength: 253 })),
    publicKey: Optional(NonEmptyText("Public key of an exporting account that has no resource here.")),
    subject: Optional(NonEmptyText("Exported subject, with publicKey.")),
    type: Optional(OneOf(EXPORT_TYPES, "Export type, with publicKey.")),
    activation: Optional(
      Struct(
        {
          secretKeyRef: Struct(
            {
              name: NonEmptyText("Name of the Secret, in the account's namespace.", { maxLength: NAME_MAX_LENGTH }),
              key: NonEmptyText("Key holding the activation token.", { maxLength: NAME_MAX_LENGTH }),
            },
            "Secret key holding the token.",
          ),
        },
        "Activation token issued by the exporter, for a private export named by publicKey.",
      ),
    ),
    localSubject: Optional(
      NonEmptyText("Subject the import appears under locally; the exported subject when omitted."),
    ),
    share: Optional(Flag("Share the importer's connection details with the service (Service imports).")),
    allowTrace: Optional(Flag("Let message traces cross into the exporter (Stream imports).")),
  },
  "An import of another account's export, named by accountRef and export, or by publicKey, subject and type.",
  {
    rules: [
      { rule: "has(self.accountRef) != has(self.publicKey)", message: "set exactly one of accountRef and publicKey" },
      { rule: "has(self.accountRef) == has(self.export)", message: "export is named together with accountRef" },
      {
        rule: "!has(self.publicKey) || (has(self.subject) && has(self.type))",
        message: "an import by publicKey sets subject and type",
      },
      {
        rule: "has(self.publicKey) || !(has(self.subject) || has(self.type) || has(self.activation))",
        message: "subject, type and activation are set only on an import by publicKey",
      },
    ],
  },
);
export type Import = Static<typeof Import>;

/** Status of one import as resolved by the controller. */
export const ImportStatus = Struct(
  {
    export: NonEmptyText("Export imported: account/export, or namespace/account/export across namespaces."),
    subject: Optional(NonEmptyText("Exported subject.")),
    localSubject: Optional(NonEmptyText("Local subject.")),
    type: Optional(OneOf(EXPORT_TYPES, "Export type.")),
    activation: Optional(
      OneOf(["Signed", "Supplied"], "Activation token: Signed by the controller, or Supplied in a Secret."),
    ),
  },
  "A resolved import.",
);

/** Status of one export's activation tokens for importers named by public key. */
export const ExportStatus = Struct(
  {
    name: NonEmptyText("Export name."),
    importers: Optional(
      ListOf(
        Struct(
          {
            publicKey: NonEmptyText("Importer public key."),
            activationToken: Optional(NonEmptyText("Activation token for that importer.")),
          },
          "A token minted for an importer.",
        ),
        "Tokens minted for importers named by public key.",
        { listType: "map", listMapKeys: ["publicKey"] },
      ),
    ),
  },
  "Activation tokens of one export.",
);
