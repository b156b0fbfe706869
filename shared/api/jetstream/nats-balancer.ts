// NatsBalancer: evens leaders (and optionally replicas) within pools of one account's streams.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf, Int32 } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { LabelSelector } from "../common/kubernetes.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  ageColumn,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { Moves, BalancerInterval, Move } from "./balancer-types.ts";

const Pool = Struct(
  {
    name: NonEmptyText("Pool name, shown in status.", { maxLength: 63, pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" }),
    selector: LabelSelector(
      "Selects NatsStream, NatsKeyValue and NatsObjectStore resources in the balancer's namespace; the first matching pool wins.",
    ),
  },
  "A group of streams balanced together.",
);

export const NatsBalancerSpec = Struct(
  {
    connectionRef: ObjectReference("NatsConnection", "Connection whose credentials decide the account balanced."),
    pools: Optional(
      ListOf(Pool, "Pools of streams; with none the whole account is one pool.", {
        listType: "map",
        listMapKeys: ["name"],
      }),
    ),
    moves: Moves("account"),
    interval: BalancerInterval(),
  },
  "The account to balance and how.",
);
export type NatsBalancerSpec = Static<typeof NatsBalancerSpec>;

export const NatsBalancerStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(Conditions("Ready, Holding and Overlapping")),
    pools: Optional(
      ListOf(
        Struct(
          {
            name: NonEmptyText("Pool name; (default) holds streams no pool selects."),
            streams: Optional(Int32("Streams in the pool.")),
            leaderSkew: Optional(Int32("Most minus fewest leaders per server.")),
          },
          "Balance of one pool.",
        ),
        "Balance per pool.",
        { listType: "map", listMapKeys: ["name"] },
      ),
    ),
    lastMove: Optional(Move("The last move; the next waits interval after it.")),
  },
  "Observed state of the balancer.",
);
export type NatsBalancerStatus = Static<typeof NatsBalancerStatus>;

export const NatsBalancerResource = resourceSchema(KINDS.NatsBalancer, NatsBalancerSpec, NatsBalancerStatus);
export type NatsBalancer = Static<typeof NatsBalancerResource>;

export const natsBalancerDefinition: KindDefinition = {
  info: KINDS.NatsBalancer,
  description:
    "Evens stream leaders (and optionally replicas) within pools of one account's streams, yielding to the system balancer and evacuations.",
  spec: NatsBalancerSpec,
  status: NatsBalancerStatus,
  columns: [...readyColumns(), conditionColumn("Holding", "Whether the balancer is holding its moves."), ageColumn()],
};
