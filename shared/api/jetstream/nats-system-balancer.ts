// NatsSystemBalancer: evens leaders and replicas across a whole NATS cluster.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf, Int32, Int64, Flag, OneOf, Text } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  ageColumn,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { Moves, BalancerInterval, Move } from "./balancer-types.ts";

export const NatsSystemBalancerSpec = Struct(
  {
    connectionRef: ObjectReference("NatsConnection", "Connection with system account credentials."),
    moves: Moves(),
    interval: BalancerInterval(),
  },
  "The NATS cluster to balance and how; at most one balancer per NATS cluster.",
);
export type NatsSystemBalancerSpec = Static<typeof NatsSystemBalancerSpec>;

export const NatsSystemBalancerStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready and Holding")),
    capabilities: Optional(
      Struct(
        {
          placement: Optional(Flag("Whether placement moves are possible.")),
          leader: Optional(
            OneOf(
              ["Full", "Partial", "None"],
              "How many accounts holding streams carry the jetstream-stepdown export; unset when leader moves are off.",
            ),
          ),
          leaderReason: Optional(Text("Why leader moves are limited.")),
        },
        "What the balancer can move.",
      ),
    ),
    servers: Optional(
      ListOf(
        Struct(
          {
            name: NonEmptyText("Server name."),
            leaders: Optional(Int32("Raft groups it leads.")),
            replicas: Optional(Int32("Replicas it holds.")),
          },
          "Load of one server.",
        ),
        "Load per server.",
        { listType: "map", listMapKeys: ["name"] },
      ),
    ),
    skew: Optional(
      Struct(
        {
          leaders: Optional(Int32("Most minus fewest leaders per server.")),
          replicas: Optional(Int32("Most minus fewest replicas per server.")),
        },
        "Imbalance across servers.",
      ),
    ),
    lastMove: Optional(Move("The last move.")),
    pending: Optional(ListOf(Move("A move requested and not complete."), "Moves in flight.", { listType: "atomic" })),
    placement: Optional(
      Struct(
        {
          lowestUnevenness: Int64(
            "Lowest unevenness seen: the sum, over the roster servers, of the square of the stream copies each holds.",
            { minimum: 0 },
          ),
          copies: Int32("Stream copies on the roster when that lowest was seen; another count starts over.", {
            minimum: 0,
          }),
          servers: Int32("Roster servers when that lowest was seen; another count starts over.", { minimum: 0 }),
          tried: ListOf(
            Struct(
              {
                account: NonEmptyText("Public key of the account."),
                stream: NonEmptyText("Stream name."),
              },
              "A stream moved by an unsure move.",
            ),
            "Streams moved by an unsure move (one that pays off only if the server lands the copy well) since the lowest was seen: not moved that way again until unevenness drops lower.",
            { listType: "atomic" },
          ),
        },
        "What placement moves remember between passes, so that copies do not travel back and forth; kept while moves.placement is on.",
      ),
    ),
  },
  "Observed state of the balancer.",
);
export type NatsSystemBalancerStatus = Static<typeof NatsSystemBalancerStatus>;

export const NatsSystemBalancerResource = resourceSchema(
  KINDS.NatsSystemBalancer,
  NatsSystemBalancerSpec,
  NatsSystemBalancerStatus,
);
export type NatsSystemBalancer = Static<typeof NatsSystemBalancerResource>;

export const natsSystemBalancerDefinition: KindDefinition = {
  info: KINDS.NatsSystemBalancer,
  description: "Evens stream leaders and replicas across every account of one NATS cluster.",
  spec: NatsSystemBalancerSpec,
  status: NatsSystemBalancerStatus,
  columns: [...readyColumns(), conditionColumn("Holding", "Whether the balancer is holding its moves."), ageColumn()],
};
