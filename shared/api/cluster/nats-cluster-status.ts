// NatsCluster status: servers, endpoints, config revision and rollout progress.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf, Int32, OneOf, Text } from "../common/fields.ts";
import { Quantity, Time } from "../common/formats.ts";
import { Conditions, ObservedGeneration, ReconciledInputs } from "../common/conditions.ts";

const ServerNames = (description: string) => ListOf(Text("A server name."), description, { listType: "atomic" });

const Removal = Struct(
  {
    name: NonEmptyText("Server being removed or replaced."),
    phase: OneOf(
      ["Requested", "Evacuating", "Removed", "Deleting", "Rejoining"],
      "Requested: waiting its turn. Evacuating: the meta leader moves its data away. Removed: out of the meta group. " +
        "Deleting: its StatefulSet and claim are being deleted. Rejoining: the replacement runs until the gate opens.",
    ),
    since: Optional(Time("When the phase began.")),
  },
  "A server on its way out.",
);

const Leftover = Struct(
  {
    kind: OneOf(["PersistentVolumeClaim", "ConfigMap"], "What kind of object was left."),
    name: NonEmptyText("Its name, in the cluster's namespace."),
    server: NonEmptyText("The removed server it belonged to."),
  },
  "An object of a removed server's name that the operator did not delete: a data claim that does not carry the " +
    "server's labels, or a ConfigMap this NatsCluster does not control.",
);

export const NatsClusterStatus = Struct(
  {
    observedGeneration: Optional(ObservedGeneration()),
    inputs: Optional(ReconciledInputs()),
    conditions: Optional(
      Conditions("Ready, Settled, Progressing, Deleting, and GatewaysConnected or LeafnodesConnected where they apply"),
    ),
    version: Optional(Text("Version every planned server runs.")),
    replicas: Optional(Int32("Servers planned (spec.replicas).")),
    readyReplicas: Optional(Int32("Servers whose pod is Ready.")),
    endpoints: Optional(
      Struct(
        {
          client: Optional(Text("Client URL (nats:// or tls://) on the client Service.")),
          monitor: Optional(Text("Monitoring URL on the headless Service.")),
          gateway: Optional(Text("Advertised gateway address.")),
        },
        "Where the cluster is reached.",
      ),
    ),
    config: Optional(
      Struct(
        {
          revision: Optional(Text("Digest of the rendered configuration; each server reports its own.")),
          appliedBy: Optional(OneOf(["Reload", "Restart"], "How this revision reaches the servers.")),
          restartReason: Optional(Text("What makes the change need a restart.")),
        },
        "The configuration the servers should run.",
      ),
    ),
    rollout: Optional(
      Struct(
        {
          targetRevision: Optional(Text("Revision being rolled out.")),
          updated: Optional(ServerNames("Servers already at the target revision.")),
          current: Optional(Text("Server being updated now.")),
          pending: Optional(ServerNames("Servers still to update.")),
          updatedCount: Optional(Int32("How many servers are in updated (a printer column).")),
          pendingCount: Optional(Int32("How many servers are in pending (a printer column).")),
          gate: Optional(
            Struct(
              {
                waitingFor: Optional(Text("Condition the next step waits for.")),
                since: Optional(Time("When the gate closed.")),
              },
              "What holds the next step.",
            ),
          ),
        },
        "Progress of a one-server-at-a-time rollout.",
      ),
    ),
    removals: Optional(
      ListOf(Removal, "Servers being removed or replaced.", { listType: "map", listMapKeys: ["name"] }),
    ),
    leftovers: Optional(
      ListOf(
        Leftover,
        "What removed servers left behind, kept here until it is deleted; Ready reads False, ReconcileFailed, meanwhile.",
        { listType: "map", listMapKeys: ["kind", "name"] },
      ),
    ),
    jetstream: Optional(
      Struct(
        {
          metaLeader: Optional(Text("Server leading the JetStream meta group; empty if unknown.")),
          limits: Optional(
            Struct(
              {
                maxMemoryStore: Optional(Quantity("Effective memory store limit.")),
                maxFileStore: Optional(Quantity("Effective file store limit.")),
              },
              "Effective store limits per server.",
            ),
          ),
        },
        "JetStream state.",
      ),
    ),
    routeCertificate: Optional(
      Struct(
        {
          notAfter: Optional(Time("When the route certificate expires.")),
          renewAt: Optional(
            Time(
              "When it is renewed (a third of its life before it expires), on the first resync tick after this time.",
            ),
          ),
        },
        "The route certificate the operator issued itself (routes.tls selfSigned); absent otherwise.",
      ),
    ),
    gateways: Optional(
      ListOf(
        Struct(
          {
            name: NonEmptyText("Member cluster."),
            connected: Optional(
              Flag("Every server of this cluster dials it, and at least one of its servers dials in."),
            ),
            inbound: Optional(Int32("Inbound gateway connections from it.")),
            outbound: Optional(Int32("Outbound gateway connections to it.")),
          },
          "Connectivity to one member of the supercluster.",
        ),
        "Gateway connectivity per remote member.",
        { listType: "map", listMapKeys: ["name"] },
      ),
    ),
    leafRemotes: Optional(
      ListOf(
        Struct(
          {
            connectionNamespace: NonEmptyText("Namespace of the NatsConnection."),
            connectionName: NonEmptyText("Name of the NatsConnection."),
            connected: Optional(Int32("Servers connected to this remote.")),
            account: Optional(Text("Public key of the hub account the remote is bound to.")),
          },
          "State of one leaf remote.",
        ),
        "Leaf remote connectivity.",
        { listType: "map", listMapKeys: ["connectionNamespace", "connectionName"] },
      ),
    ),
    servers: Optional(
      ListOf(
        Struct(
          {
            name: NonEmptyText("Server name."),
            version: Optional(Text("Version the server reports.")),
            ready: Optional(Flag("Whether its pod is Ready.")),
            configRevision: Optional(Text("Config revision the server reports.")),
          },
          "One server.",
        ),
        "Every server.",
        { listType: "map", listMapKeys: ["name"] },
      ),
    ),
  },
  "Observed state of the NATS cluster.",
);
export type NatsClusterStatus = Static<typeof NatsClusterStatus>;
