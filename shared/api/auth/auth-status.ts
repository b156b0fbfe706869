// Status types shared by the auth kinds: JWT distribution and revocations.
import { Struct, NonEmptyText, Optional, Int32, ListOf, Text, OneOf } from "../common/fields.ts";
import { Time } from "../common/formats.ts";
import type { PrinterColumn } from "../common/kind-definition.ts";

const RosterServer = Struct(
  {
    id: NonEmptyText("Server ID (a restarted server comes back under a new one)."),
    missedPolls: Optional(
      Int32("STATSZ polls in a row the server did not answer; it leaves the roster at 3.", { minimum: 0 }),
    ),
  },
  "A server of the roster.",
);

export const Distribution = Struct(
  {
    servers: Optional(Int32("Servers that trust the account's NATS operator.")),
    current: Optional(Int32("Servers holding the current JWT.")),
    lastPushTime: Optional(Time("Last push a server acknowledged.")),
    roster: Optional(
      ListOf(RosterServer, "The servers counted: each stays until it misses three STATSZ polls in a row.", {
        listType: "map",
        listMapKeys: ["id"],
      }),
    ),
    polledAt: Optional(Time("The STATSZ poll a miss was last counted for, so one poll counts once.")),
  },
  "How far the account JWT has reached the servers.",
);

/** How far the JWT has reached, read as Current of Servers. */
export const distributionColumns = (): PrinterColumn[] => [
  {
    name: "Current",
    type: "integer",
    jsonPath: ".status.distribution.current",
    description: "Servers holding the current JWT.",
  },
  {
    name: "Servers",
    type: "integer",
    jsonPath: ".status.distribution.servers",
    description: "Servers that trust the account's NATS operator.",
  },
];

const Revocation = Struct(
  {
    publicKey: NonEmptyText("Revoked user key, or * for every user."),
    at: Time("User JWTs issued at or before this time are revoked."),
    issuers: Optional(
      ListOf(Text("A public key."), "Keys that may have signed a revoked JWT; the entry goes once none is in use.", {
        listType: "atomic",
      }),
    ),
  },
  "A user revocation carried in the account JWT.",
);

export const Revocations = () =>
  ListOf(Revocation, "User revocations the account JWT carries.", { listType: "map", listMapKeys: ["publicKey"] });

/** What to do when signing from spec would drop claims of the JWT the servers already hold. */
export const Adoption = Struct(
  {
    droppedClaims: Optional(
      OneOf(
        ["Refuse", "Accept"],
        "Refuse (when omitted): sign nothing and name each claim that would be lost (Ready False, " +
          "AdoptionDropsClaims). Accept: sign without them. Read only before the first signing.",
      ),
    ),
  },
  "Taking over an account whose JWT the servers already hold.",
);
