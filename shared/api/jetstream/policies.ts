// Lifecycle policies every JetStream object spec carries.
import { Optional, OneOf } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { immutable } from "./rules.ts";

export const ADOPTION_POLICIES = ["Never", "Adopt", "AdoptOrCreate"] as const;
export const TERMINAL_POLICIES = ["Hold", "Retry"] as const;
export const DELETION_POLICIES = ["Retain", "Delete"] as const;
/** What a NatsStream does when its stream, created or adopted before, is gone on the server. */
export const STREAM_LOSS_POLICIES = ["Recreate", "Hold"] as const;
export type StreamLossPolicy = (typeof STREAM_LOSS_POLICIES)[number];
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];

export const policyProperties = (serverObject: string, deletionDefault: DeletionPolicy) => ({
  adoptionPolicy: Optional(
    OneOf(
      ADOPTION_POLICIES,
      `Never: create the ${serverObject}; an existing one without this resource's marker is Terminal (ExistsUnowned). ` +
        `Adopt: take over an existing ${serverObject} and write its config into spec; never create it. ` +
        `AdoptOrCreate: apply spec whether or not it exists, filling omitted fields from the server.`,
      { default: "Never" },
    ),
  ),
  terminalPolicy: Optional(
    OneOf(
      TERMINAL_POLICIES,
      "Hold: a Terminal condition stays until the resource is edited. Retry: recheck every resync period.",
      { default: "Hold" },
    ),
  ),
  deletionPolicy: Optional(
    OneOf(DELETION_POLICIES, `What deleting the resource does to the ${serverObject}: keep it or delete it.`, {
      default: deletionDefault,
    }),
  ),
});

/** The connection a JetStream object is managed through; fixed once created. */
export const ImmutableConnectionRef = () =>
  ObjectReference(
    "NatsConnection",
    "Connection to the NATS cluster; its credentials decide the account. Cannot change.",
    {
      rules: [immutable("connectionRef")],
    },
  );
