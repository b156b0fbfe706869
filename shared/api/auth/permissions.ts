// Subject permissions, connection types and per-user limits of NATS user JWTs.
import type { Static } from "typebox";
import { Struct, Optional, ListOf, OneOf, Int64, NonEmptyText } from "../common/fields.ts";
import { Quantity } from "../common/formats.ts";

export const CONNECTION_TYPES = [
  "STANDARD",
  "WEBSOCKET",
  "LEAFNODE",
  "LEAFNODE_WS",
  "MQTT",
  "MQTT_WS",
  "IN_PROCESS",
] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

export const ConnectionTypes = (description: string) =>
  ListOf(OneOf(CONNECTION_TYPES, "A connection type, as NATS user JWTs spell it."), description, { listType: "set" });

const Subjects = (description: string) =>
  ListOf(NonEmptyText("A subject; wildcards * and > allowed."), description, { listType: "atomic" });

const SubjectPermissions = (direction: string) =>
  Struct(
    {
      allow: Optional(Subjects(`Subjects the user may ${direction}; empty allows every subject.`)),
      deny: Optional(Subjects(`Subjects the user may not ${direction}, even where allow matches.`)),
    },
    `Which subjects the user may ${direction}.`,
  );

export const Permissions = (description: string) =>
  Struct(
    {
      publish: Optional(SubjectPermissions("publish to")),
      subscribe: Optional(SubjectPermissions("subscribe to")),
    },
    description,
  );
export type Permissions = Static<ReturnType<typeof Permissions>>;

export const UserLimits = (description: string) =>
  Struct(
    {
      subscriptions: Optional(Int64("Most subscriptions at once; unlimited when omitted.")),
      payload: Optional(Quantity("Largest message payload; unlimited when omitted.")),
    },
    description,
  );
