// API groups and the one version every kind is served at.

export const API_GROUPS = {
  core: "nats-operator.io",
  cluster: "cluster.nats-operator.io",
  auth: "auth.nats-operator.io",
  jetstream: "jetstream.nats-operator.io",
} as const;

export type ApiGroupKey = keyof typeof API_GROUPS;
export type ApiGroup = (typeof API_GROUPS)[ApiGroupKey];

export const API_VERSION = "v1beta1";

/** Categories so `kubectl get nats` (and one per group) lists the kinds. */
export const CATEGORIES = {
  all: "nats",
  core: "nats-core",
  cluster: "nats-cluster",
  auth: "nats-auth",
  jetstream: "nats-jetstream",
} as const;
