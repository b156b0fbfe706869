// NatsCluster spec: what cluster of nats-servers to run.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf, Int32, StringMap, OneOf, Text } from "../common/fields.ts";
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

/** A positive Go duration (what nats-server's sync_interval parses), or `always`. */
const SYNC_INTERVAL_PATTERN = "^([0-9]+(\\\\.[0-9]+)?(ns|us|ms|s|m|h))+$";
const SYNC_INTERVAL_RULE = `self == 'always' || (self.matches('${SYNC_INTERVAL_PATTERN}') && duration(self) > duration('0s'))`;
const SYNC_INTERVAL_MESSAGE = "jetstream.syncInterval must be a positive duration such as 2m, 10s or 500ms, or always";

const EPHEMERAL_STORAGE_MESSAGE =
  "JetStream without jetstream.volumeClaimTemplate keeps its data in an emptyDir that every server restart " +
  "empties: set jetstream.volumeClaimTemplate, or set jetstream.storage: Ephemeral to accept that";
const STORAGE_CONFLICT_MESSAGE =
  "jetstream.storage: Ephemeral and jetstream.volumeClaimTemplate contradict each other: remove one";

const JETSTREAM_STORAGE_RULES = [
  {
    rule: "has(self.volumeClaimTemplate) || (has(self.storage) && self.storage == 'Ephemeral')",
    message: EPHEMERAL_STORAGE_MESSAGE,
  },
  {
    rule: "!(has(self.volumeClaimTemplate) && has(self.storage) && self.storage == 'Ephemeral')",
    message: STORAGE_CONFLICT_MESSAGE,
  },
];

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
    storage: Optional(
      OneOf(
        ["Persistent", "Ephemeral"],
        "Where each server keeps its JetStream data. Persistent (what absence means) needs volumeClaimTemplate. " +
          "Ephemeral keeps it in an emptyDir, emptied whenever a server's pod is recreated: every restart or " +
          "replacement starts that server empty, and streams with one replica (the default) are lost.",
      ),
    ),
    syncInterval: Optional(
      Text(
        "How often each server flushes JetStream writes to disk (nats-server's sync_interval): a positive " +
          "duration such as 2m or 10s, or always to flush every write before acknowledging it (safer on " +
          "coordinated power loss, at a throughput cost). nats-server's default, 2m, when absent. A change " +
          "restarts the servers one at a time.",
        { maxLength: 64, rules: [{ rule: SYNC_INTERVAL_RULE, message: SYNC_INTERVAL_MESSAGE }] },
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
  { rules: JETSTREAM_STORAGE_RULES },
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
              "Partial pod spec merged over the rendered one. The chart's ValidatingAdmissionPolicy " +
                "nats-operator-pod-template admits scheduling, resources, the containers nats and exporter, and " +
                "security settings in the restricted direction only; it refuses privileged containers, host " +
                "namespaces, volumes (hostPath among them), another serviceAccountName, Secrets in env and extra " +
                "containers, naming the field, unless the install sets cluster.allowUnrestrictedPodTemplate " +
                "(docs/install.md#what-a-podtemplate-may-set).",
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
