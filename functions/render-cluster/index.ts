import { pendingFunction } from "../pending.ts";

/** Renders a NatsCluster into StatefulSets, ConfigMaps, Services, PDB, NetworkPolicy and route TLS. */
export const renderCluster = pendingFunction("render-cluster", ["NatsCluster.cluster.nats-operator.io", "StatefulSet.apps"], false);
export const handle = renderCluster.handle;
