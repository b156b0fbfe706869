// Server-side apply field managers, one per function, so each owns its own fields.

export const FIELD_MANAGERS = {
  renderCluster: "nats-operator/render-cluster",
  stepRollout: "nats-operator/step-rollout",
  signAccount: "nats-operator/sign-account",
  syncStream: "nats-operator/sync-stream",
  balance: "nats-operator/balance",
  /** The runtime's own `Stalled` condition (`shared/runtime/refusal.ts`). */
  runtime: "nats-operator/runtime",
} as const;

export type FieldManager = (typeof FIELD_MANAGERS)[keyof typeof FIELD_MANAGERS];
