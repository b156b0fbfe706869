// Types shared by the account and system balancers.
import { Struct, Optional, OneOf, Text, Flag } from "../common/fields.ts";
import { Duration, Time } from "../common/formats.ts";

/** A NatsBalancer's placement: refused, as an account's own API can move a copy only by dropping it first (B5). */
const accountPlacement = () =>
  Flag(
    "Always false: a NatsBalancer moves leaders only. Copies are moved by a NatsSystemBalancer with moves.placement.",
    {
      default: false,
      rules: [
        {
          rule: "!self",
          message: "a NatsBalancer moves leaders only; copies are moved by a NatsSystemBalancer with moves.placement",
        },
      ],
    },
  );

export const Moves = (of: "account" | "system" = "system") =>
  Optional(
    Struct(
      {
        leader: Optional(
          Flag("Move stream and consumer leaders (needs the jetstream-stepdown export in the account).", {
            default: true,
          }),
        ),
        placement: Optional(
          of === "account" ? accountPlacement() : Flag("Move replicas off crowded servers.", { default: false }),
        ),
      },
      "Which kinds of moves the balancer makes.",
      { default: {} },
    ),
  );

export const BalancerInterval = () =>
  Optional(
    Duration("Least time between two moves; 1m when omitted.", {
      rules: [{ rule: "duration(self) > duration('0s')", message: "interval must be a positive duration" }],
    }),
  );

export const Move = (description: string) =>
  Struct(
    {
      kind: Optional(OneOf(["Leader", "Placement"], "Leader moves a Raft leader; Placement moves a replica.")),
      account: Optional(Text("Public key of the account.")),
      stream: Optional(Text("Stream moved.")),
      consumer: Optional(Text("Consumer moved; empty for a stream move.")),
      from: Optional(Text("Server moved from.")),
      to: Optional(Text("Server moved to.")),
      time: Optional(Time("When the move was requested.")),
    },
    description,
  );
