// NatsCluster: a NATS cluster run as one StatefulSet per server.
import type { Static } from "typebox";
import { KINDS } from "../kinds.ts";
import {
  resourceSchema,
  readyColumns,
  conditionColumn,
  conditionReasonColumn,
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
    { name: "Version", type: "string", jsonPath: ".status.version", description: "Version every planned server runs." },
    {
      name: "Ready Servers",
      type: "integer",
      jsonPath: ".status.readyReplicas",
      description: "Servers whose pod is Ready.",
    },
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", description: "Servers wanted." },
    ...readyColumns(),
    conditionReasonColumn(
      "Rollout",
      "Progressing",
      "The Progressing reason: UpToDate, or what the rollout does or waits for.",
    ),
    {
      name: "Updated",
      type: "integer",
      jsonPath: ".status.rollout.updatedCount",
      description: "Servers of the rollout already at the target revision.",
    },
    {
      name: "Pending",
      type: "integer",
      jsonPath: ".status.rollout.pendingCount",
      description: "Servers of the rollout still to update (the one being updated not counted).",
    },
    ageColumn(),
    {
      name: "Wanted",
      type: "string",
      jsonPath: ".spec.version",
      description: "nats-server version spec asks for.",
      priority: 1,
    },
    {
      name: "Current",
      type: "string",
      jsonPath: ".status.rollout.current",
      description: "Server being updated now.",
      priority: 1,
    },
    {
      name: "Waiting For",
      type: "string",
      jsonPath: ".status.rollout.gate.waitingFor",
      description: "Condition the next rollout step waits for.",
      priority: 1,
    },
    { ...conditionColumn("Settled", "Whether every Raft group has a leader and current members."), priority: 1 },
  ],
  metadataName: {
    maxLength: NATS_CLUSTER_NAME_MAX_LENGTH,
    pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$",
    why: "the name is a Service name and the prefix of <name>-headless",
  },
};
