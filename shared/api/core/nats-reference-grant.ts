// NatsReferenceGrant: admits references from other namespaces into its own.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import { Struct, NonEmptyText, Optional, ListOf } from "../common/fields.ts";
import { statuslessResourceSchema, ageColumn, type KindDefinition } from "../common/kind-definition.ts";

const GrantFrom = Struct(
  {
    group: NonEmptyText("API group of the referring kind, matched exactly (for example cluster.nats-operator.io)."),
    kind: NonEmptyText("Referring kind, matched exactly (for example NatsCluster)."),
    namespace: NonEmptyText("Namespace of the referring objects, matched exactly."),
  },
  "Objects allowed to refer into this namespace.",
);

const GrantTo = Struct(
  {
    group: NonEmptyText("API group of the target kind, matched exactly (for example nats-operator.io)."),
    kind: NonEmptyText("Target kind, matched exactly (for example NatsConnection)."),
    name: Optional(NonEmptyText("Target object; omitted admits every object of the kind in this namespace.")),
  },
  "Objects in this namespace that may be referred to.",
);

export const NatsReferenceGrantSpec = Struct(
  {
    from: ListOf(GrantFrom, "Referrers admitted; a reference must match one entry.", {
      minItems: 1,
      listType: "atomic",
    }),
    to: ListOf(GrantTo, "Targets in this namespace the referrers may name; a reference must match one entry.", {
      minItems: 1,
      listType: "atomic",
    }),
  },
  "Which referrers may name which targets in this namespace.",
);
export type NatsReferenceGrantSpec = Static<typeof NatsReferenceGrantSpec>;

export const NatsReferenceGrantResource = statuslessResourceSchema(KINDS.NatsReferenceGrant, NatsReferenceGrantSpec);
export type NatsReferenceGrant = Static<typeof NatsReferenceGrantResource>;

export const natsReferenceGrantDefinition: KindDefinition = {
  info: KINDS.NatsReferenceGrant,
  description:
    "Admits references from other namespaces into this one. References within a namespace never need a grant; " +
    "the grant is checked on every reconcile, so deleting it revokes.",
  spec: NatsReferenceGrantSpec,
  columns: [ageColumn()],
};
