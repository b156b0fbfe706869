// Finalizers and what releases them.
import { API_GROUPS } from "../groups.ts";

export const FINALIZERS = {
  /** NatsCluster with JetStream: released when no stream group remains, JetStream is off, or force-delete is set. */
  jetstreamData: `${API_GROUPS.cluster}/jetstream-data`,
  /** NatsAccount: released once its operator records the deletion. */
  accountDelete: `${API_GROUPS.auth}/delete`,
  /** NatsUser: released once revoked everywhere, connections closed and the owned creds Secret removed. */
  userRevoke: `${API_GROUPS.auth}/revoke`,
  /** JetStream objects and evacuations: released once the deletion policy ran / moves were cancelled. */
  jetstream: `${API_GROUPS.jetstream}/finalizer`,
} as const;

export type Finalizer = (typeof FINALIZERS)[keyof typeof FINALIZERS];
