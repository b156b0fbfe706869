// Labels on objects rendered for a NatsCluster.
import { API_GROUPS } from "../groups.ts";

export const LABELS = {
  /** Value: the NatsCluster name; every rendered object carries it. */
  cluster: `${API_GROUPS.cluster}/cluster`,
  /** Value: the server name; per-server objects carry it. */
  server: `${API_GROUPS.cluster}/server`,
  appName: "app.kubernetes.io/name",
  appInstance: "app.kubernetes.io/instance",
  appManagedBy: "app.kubernetes.io/managed-by",
} as const;

export const APP_NAME = "nats";
export const MANAGED_BY = "cluster-controller";

export type Label = (typeof LABELS)[keyof typeof LABELS];
