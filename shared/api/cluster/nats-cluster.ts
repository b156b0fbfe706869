// NatsCluster: a NATS cluster run as one StatefulSet per server.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  ageColumn,
  type KindDefinition,
} from "../common/kind-definition.ts";
import { NatsClusterSpec } from "./nats-cluster-spec.ts";
import { NatsClusterStatus } from "./nats-cluster-status.ts";

export { NatsClusterSpec } from "./nats-cluster-spec.ts";
export { NatsClusterStatus } from "./nats-cluster-status.ts";

export const NatsClusterResource = resourceSchema(KINDS.NatsCluster, NatsClusterSpec, NatsClusterStatus);
export type NatsCluster = Static<typeof NatsClusterResource>;

/** Longest name: the headless Service `<name>-headless` must stay a 63-character DNS label. */
export const NATS_CLUSTER_NAME_MAX_LENGTH = 54;

export const natsClusterDefinition: KindDefinition = {
  info: KINDS.NatsCluster,
  description:
    "A NATS cluster: one StatefulSet and ConfigMap per server plus Services, a PodDisruptionBudget, a " +
    "NetworkPolicy and route TLS. Changes roll out one server at a time, each step waiting until the cluster is Settled.",
  spec: NatsClusterSpec,
  status: NatsClusterStatus,
  columns: [
    { name: "Version", type: "string", jsonPath: ".spec.version", description: "nats-server version." },
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", description: "Number of servers." },
    ...readyColumns(),
    conditionColumn("Settled", "Whether every Raft group has a leader and current members."),
    ageColumn(),
  ],
  metadataName: {
    maxLength: NATS_CLUSTER_NAME_MAX_LENGTH,
    pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$",
    why: "the name is a Service name and the prefix of <name>-headless",
  },
};
