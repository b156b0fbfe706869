// Account-wide limits, including JetStream limits per account or per replica tier.
import type { Static } from "typebox";
import { Struct, Optional, Int64, Flag, ListOf, OneOf } from "../common/fields.ts";
import { Quantity } from "../common/formats.ts";

const jetStreamLimitProperties = () => ({
  memoryStorage: Optional(Quantity("Memory storage the account's streams may use.")),
  diskStorage: Optional(Quantity("File storage the account's streams may use.")),
  streams: Optional(Int64("Most streams.")),
  consumers: Optional(Int64("Most consumers.")),
  maxAckPending: Optional(Int64("Highest maxAckPending a consumer may set.")),
  memoryMaxStreamBytes: Optional(Quantity("Highest maxBytes a memory stream may set.")),
  diskMaxStreamBytes: Optional(Quantity("Highest maxBytes a file stream may set.")),
  maxBytesRequired: Optional(Flag("Refuse streams that set no maxBytes.")),
});

export const JETSTREAM_TIERS = ["R1", "R2", "R3", "R4", "R5"] as const;

const JetStreamTier = Struct(
  {
    name: OneOf(JETSTREAM_TIERS, "Tier: R followed by the stream replica count."),
    ...jetStreamLimitProperties(),
  },
  "Limits for streams of one replica count.",
);

const accountWideFields = [
  "memoryStorage",
  "diskStorage",
  "streams",
  "consumers",
  "maxAckPending",
  "memoryMaxStreamBytes",
  "diskMaxStreamBytes",
];

export const AccountJetStreamLimits = Struct(
  {
    ...jetStreamLimitProperties(),
    tiers: Optional(
      ListOf(JetStreamTier, "Limits per replica tier; the servers refuse streams whose tier is not listed.", {
        listType: "map",
        listMapKeys: ["name"],
        maxItems: 5,
      }),
    ),
  },
  "JetStream for the account; its presence enables JetStream. Limits apply account-wide or by tier, not both.",
  {
    rules: [
      {
        rule:
          "!has(self.tiers) || size(self.tiers) == 0 || (" +
          accountWideFields.map((f) => `!has(self.${f})`).join(" && ") +
          " && !(has(self.maxBytesRequired) && self.maxBytesRequired))",
        message: "jetstream limits are set either for the account or by tier",
      },
    ],
  },
);

export const AccountLimits = Struct(
  {
    connections: Optional(Int64("Most client connections at once.")),
    subscriptions: Optional(Int64("Most subscriptions at once.")),
    payload: Optional(Quantity("Largest message payload.")),
    jetstream: Optional(AccountJetStreamLimits),
  },
  "Account limits; a limit left out is unlimited.",
);
export type AccountLimits = Static<typeof AccountLimits>;
