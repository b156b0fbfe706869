// NatsCluster spec: what cluster of nats-servers to run.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf, Int32, StringMap } from "../common/fields.ts";
import { Quantity } from "../common/formats.ts";
import {
  ResourceRequirements,
  EmbeddedMetadata,
  PersistentVolumeClaimSpec,
  PartialPodSpec,
} from "../common/kubernetes.ts";
import { NatsVersion } from "./version.ts";
import { NatsImage } from "./image.ts";
import { Exporter } from "./exporter.ts";
import { ListenerTLS, RoutesTLS } from "./tls.ts";
import { ClusterAuth } from "./cluster-auth.ts";
import { Gateway, Leafnodes, LeafRemote } from "./topology.ts";

export const ClusterJetStream = Struct(
  {
    domain: Optional(NonEmptyText("JetStream domain; required on a leaf cluster.")),
    limits: Optional(
      Struct(
        {
          maxMemoryStore: Optional(Quantity("Memory store limit; derived from the memory limit when omitted.")),
          maxFileStore: Optional(Quantity("File store limit; derived from the volume size when omitted.")),
        },
        "Overrides of the store limits derived from resources and volume size.",
      ),
    ),
    volumeClaimTemplate: Optional(
      Struct(
        {
          metadata: Optional(EmbeddedMetadata("Labels and annotations of each claim.")),
          spec: PersistentVolumeClaimSpec("Claim spec of each server's file-store volume."),
        },
        "Each server's file-store volume. A change replaces the servers one at a time under the same names.",
      ),
    ),
  },
  "Runs JetStream on every server; its presence enables it.",
);

export const NatsClusterSpec = Struct(
  {
    version: NatsVersion(),
    image: Optional(NatsImage),
    replicas: Int32(
      "Number of servers. Lowering it evacuates and removes the highest-numbered servers one at a time.",
      { minimum: 1 },
    ),
    resources: Optional(
      ResourceRequirements(
        "Resources of the nats-server container; GOMEMLIMIT and the memory store derive from limits.memory.",
      ),
    ),
    jetstream: Optional(ClusterJetStream),
    serverTags: Optional(StringMap("Server tags, rendered as key:value, that JetStream placement matches.")),
    podTemplate: Optional(
      Struct(
        {
          metadata: Optional(EmbeddedMetadata("Labels and annotations of the server pods.")),
          spec: Optional(
            PartialPodSpec(
              "Partial pod spec merged over the rendered one; not checked by the API server, and it may change " +
                "security settings, so only trusted writers should set it.",
            ),
          ),
        },
        "Changes to the rendered server pods.",
      ),
    ),
    exporter: Optional(Exporter),
    monitor: Optional(
      Struct(
        {
          networkPolicy: Optional(
            Flag(
              "Render a NetworkPolicy: routes only from the cluster's own pods, monitoring only from the controller's " +
                "namespace, metrics also from exporter.from, other listeners from anywhere. false renders none.",
              { default: true },
            ),
          ),
        },
        "Access to the monitoring and metrics ports.",
      ),
    ),
    tls: Optional(ListenerTLS("TLS of the client listener; clients use tls:// URLs when set.")),
    routes: Optional(Struct({ tls: Optional(RoutesTLS) }, "Connections between the cluster's servers.")),
    auth: Optional(ClusterAuth),
    gateway: Optional(Gateway),
    leafnodes: Optional(Leafnodes),
    leafRemotes: Optional(
      ListOf(LeafRemote, "Hubs this cluster connects to as a leaf; changes are applied by reload.", {
        listType: "atomic",
      }),
    ),
    rollout: Optional(
      Struct(
        { paused: Optional(Flag("Stop a rollout before its next step.")) },
        "How configuration changes roll out (one server at a time, each step waiting for Settled).",
      ),
    ),
  },
  "The NATS cluster to run.",
  {
    rules: [
      {
        rule: "!(has(self.leafRemotes) && size(self.leafRemotes) > 0 && has(self.jetstream) && !has(self.jetstream.domain))",
        message: "a leaf running JetStream must set jetstream.domain",
      },
      {
        rule: "!has(self.leafnodes) || has(self.auth)",
        message: "a leafnode listener requires auth: without it any leaf connects into the global account",
      },
      {
        // One server without a gateway runs JetStream standalone (no peer to elect a meta leader
        // with); nats-server does not carry streams between standalone and clustered JetStream.
        rule:
          "!has(self.jetstream) || !has(oldSelf.jetstream) || " +
          "((self.replicas == 1 && !has(self.gateway)) == (oldSelf.replicas == 1 && !has(oldSelf.gateway)))",
        message:
          "a JetStream NatsCluster cannot move between one server without a gateway (standalone JetStream) and " +
          "clustered JetStream: nats-server does not carry streams across; create a new NatsCluster and move the streams",
      },
    ],
  },
);
export type NatsClusterSpec = Static<typeof NatsClusterSpec>;
