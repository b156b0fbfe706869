// Condition types written by the functions.

export const CONDITION_TYPES = {
  Ready: "Ready",
  ReferencesResolved: "ReferencesResolved",
  // NatsCluster
  Settled: "Settled",
  Progressing: "Progressing",
  Deleting: "Deleting",
  GatewaysConnected: "GatewaysConnected",
  LeafnodesConnected: "LeafnodesConnected",
  // auth kinds
  Distributed: "Distributed",
  RetiringKeysInUse: "RetiringKeysInUse",
  RevocationsUnrecovered: "RevocationsUnrecovered",
  SigningKeyUntrusted: "SigningKeyUntrusted",
  // JetStream objects
  Synced: "Synced",
  Terminal: "Terminal",
  Adopted: "Adopted",
  // balancers
  Holding: "Holding",
  Overlapping: "Overlapping",
  // the runtime's own, on every kind (shared/runtime/refusal.ts)
  Stalled: "Stalled",
} as const;

export type ConditionType = (typeof CONDITION_TYPES)[keyof typeof CONDITION_TYPES];

export const CONDITION_STATUSES = { True: "True", False: "False", Unknown: "Unknown" } as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[keyof typeof CONDITION_STATUSES];
