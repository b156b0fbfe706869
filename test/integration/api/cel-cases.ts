// One accepted and one refused case (at least) for every CEL rule of the API.
// Create rules are checked by dry-run creates; transition rules by creating a
// base object and dry-run replacing its spec.
import type { KindName } from "../../../shared/api/kinds.ts";

type Spec = Record<string, unknown>;
/** A spec, or a spec computed from the object's metadata.name. */
export type SpecOf = Spec | ((name: string) => Spec);

export interface CreateRuleCase {
  readonly kind: KindName;
  readonly message: string;
  readonly accept: readonly SpecOf[];
  readonly refuse: readonly SpecOf[];
}

export interface TransitionRuleCase {
  readonly kind: KindName;
  readonly message: string;
  readonly base: SpecOf;
  readonly accept: readonly SpecOf[];
  readonly refuse: readonly SpecOf[];
}

const conn = { connectionRef: { name: "conn" } };
const cluster = (extra: Spec = {}): Spec => ({ version: "2.15.0", replicas: 3, ...extra });
const auth = { trustRef: { name: "trust" } };
const secretRef = { secretRef: { name: "tls" } };
const certManager = { certManager: { issuerRef: { name: "ca" } } };
const gateway = (extra: Spec = {}): Spec => ({
  discovery: "Explicit",
  remotes: [{ name: "a", url: "nats://a:7222" }],
  ...extra,
});
const identity = { identity: { secretKeyRef: { name: "keys", key: "identity" } } };
const signing = { signing: [{ name: "signing-1", secretKeyRef: { name: "keys", key: "signing-1" } }] };
const account = (extra: Spec = {}): Spec => ({ operatorRef: { name: "op" }, ...extra });
const user = (extra: Spec = {}): Spec => ({ accountRef: { kind: "NatsAccount", name: "acct" }, ...extra });
const sysUser = (extra: Spec = {}): Spec => ({ accountRef: { kind: "NatsSystemAccount", name: "sys" }, ...extra });
const stream = (extra: Spec = {}): Spec => ({ ...conn, ...extra });
const consumer = (extra: Spec = {}): Spec => ({ ...conn, stream: "S", ...extra });
const evacuation = (extra: Spec = {}): Spec => ({
  ...conn,
  from: { cluster: "a" },
  to: { serverTags: ["cluster:b"] },
  ...extra,
});
const stepdown = { preset: "jetstream-stepdown" };
const ephemeral = { storage: "Ephemeral" };
const claims = { volumeClaimTemplate: { spec: { resources: { requests: { storage: "1Gi" } } } } };
const exported = (extra: Spec = {}): Spec => ({ name: "e", type: "Service", subject: "svc.x", ...extra });

export const CREATE_RULES: readonly CreateRuleCase[] = [
  {
    kind: "NatsOperatorTrust",
    message: "set exactly one of operatorRef and the literal operatorJWT and systemAccountJWT",
    accept: [{ operatorRef: { name: "op" } }, { operatorJWT: "a", systemAccountJWT: "b" }],
    refuse: [{}, { operatorRef: { name: "op" }, operatorJWT: "a", systemAccountJWT: "b" }],
  },
  {
    kind: "NatsOperatorTrust",
    message: "operatorJWT and systemAccountJWT are set together",
    accept: [{ operatorJWT: "a", systemAccountJWT: "b" }],
    refuse: [{ operatorJWT: "a" }, { systemAccountJWT: "b" }],
  },
  {
    kind: "NatsAccountTrust",
    message: "set exactly one of accountRef and publicKey",
    accept: [{ accountRef: { name: "a" } }, { publicKey: "A1" }],
    refuse: [{}, { accountRef: { name: "a" }, publicKey: "A1" }],
  },
  {
    kind: "NatsAccountTrust",
    message: "jwt is set only beside publicKey",
    accept: [{ publicKey: "A1", jwt: "j" }],
    refuse: [{ accountRef: { name: "a" }, jwt: "j" }],
  },
  {
    kind: "NatsCluster",
    message: "a leaf running JetStream must set jetstream.domain",
    accept: [
      cluster({ leafRemotes: [{ connectionRef: { name: "hub" } }], jetstream: { domain: "edge", ...ephemeral } }),
      cluster({ leafRemotes: [{ connectionRef: { name: "hub" } }] }),
      cluster({ jetstream: { storage: "Ephemeral" } }),
    ],
    refuse: [cluster({ leafRemotes: [{ connectionRef: { name: "hub" } }], jetstream: { storage: "Ephemeral" } })],
  },
  {
    kind: "NatsCluster",
    message:
      "JetStream without jetstream.volumeClaimTemplate keeps its data in an emptyDir that every server restart " +
      "empties: set jetstream.volumeClaimTemplate, or set jetstream.storage: Ephemeral to accept that",
    accept: [
      cluster({ jetstream: claims }),
      cluster({ jetstream: { ...claims, storage: "Persistent" } }),
      cluster({ jetstream: ephemeral }),
      cluster(),
    ],
    refuse: [
      cluster({ jetstream: {} }),
      cluster({ jetstream: { storage: "Persistent" } }),
      cluster({ jetstream: { domain: "edge", limits: { maxFileStore: "1Gi" } } }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "jetstream.storage: Ephemeral and jetstream.volumeClaimTemplate contradict each other: remove one",
    accept: [cluster({ jetstream: claims }), cluster({ jetstream: ephemeral })],
    refuse: [cluster({ jetstream: { ...claims, storage: "Ephemeral" } })],
  },
  {
    kind: "NatsCluster",
    message: "jetstream.syncInterval must be a positive duration such as 2m, 10s or 500ms, or always",
    accept: ["always", "2m", "10s", "500ms", "1m30s", "1.5s", "100us"].map((syncInterval) =>
      cluster({ jetstream: { ...claims, syncInterval } }),
    ),
    refuse: ["Always", "never", "", "0s", "0", "-1s", "10", "2 m", "1d"].map((syncInterval) =>
      cluster({ jetstream: { ...claims, syncInterval } }),
    ),
  },
  {
    kind: "NatsCluster",
    message: "a leafnode listener requires auth: without it any leaf connects into the global account",
    accept: [cluster({ leafnodes: {}, auth })],
    refuse: [cluster({ leafnodes: {} })],
  },
  {
    kind: "NatsCluster",
    message: "version must be a semantic version, 2.15.0 or later",
    accept: [
      cluster({ version: "2.15.0" }),
      cluster({ version: "2.16.2" }),
      cluster({ version: "3.0.0" }),
      cluster({ version: "2.15.1-rc.1" }),
    ],
    refuse: [
      cluster({ version: "2.14.9" }),
      cluster({ version: "1.99.0" }),
      cluster({ version: "v2.15.0" }),
      cluster({ version: "2.15" }),
      cluster({ version: "latest" }),
      cluster({ version: "2.15.0-rc.1" }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "set exactly one of secretRef and certManager",
    accept: [
      cluster({ tls: secretRef }),
      cluster({ tls: certManager }),
      cluster({ gateway: gateway({ tls: certManager }) }),
      cluster({ auth, leafnodes: { tls: secretRef } }),
    ],
    refuse: [
      cluster({ tls: {} }),
      cluster({ tls: { ...secretRef, ...certManager } }),
      cluster({ gateway: gateway({ tls: {} }) }),
      cluster({ auth, leafnodes: { tls: { ...secretRef, ...certManager } } }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "secretRef and certManager are mutually exclusive",
    accept: [cluster({ routes: { tls: secretRef } }), cluster({ routes: { tls: {} } })],
    refuse: [cluster({ routes: { tls: { ...secretRef, ...certManager } } })],
  },
  {
    kind: "NatsCluster",
    message: "a certificate is named only while route TLS is enabled",
    accept: [
      cluster({ routes: { tls: { enabled: true, ...secretRef } } }),
      cluster({ routes: { tls: { enabled: false } } }),
    ],
    refuse: [
      cluster({ routes: { tls: { enabled: false, ...secretRef } } }),
      cluster({ routes: { tls: { enabled: false, ...certManager } } }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "localAccountTrustRef and localSystemAccount are mutually exclusive",
    accept: [
      cluster({
        leafRemotes: [
          { connectionRef: { name: "hub" }, localAccountTrustRef: { name: "t" }, localSystemAccount: false },
        ],
      }),
      cluster({ leafRemotes: [{ connectionRef: { name: "hub" }, localSystemAccount: true }] }),
    ],
    refuse: [
      cluster({
        leafRemotes: [
          { connectionRef: { name: "hub" }, localAccountTrustRef: { name: "t" }, localSystemAccount: true },
        ],
      }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "loadBalancerSourceRanges is set only when type is LoadBalancer",
    accept: [
      cluster({ gateway: gateway({ service: { type: "LoadBalancer", loadBalancerSourceRanges: ["10.0.0.0/8"] } }) }),
    ],
    refuse: [
      cluster({ gateway: gateway({ service: { type: "ClusterIP", loadBalancerSourceRanges: ["10.0.0.0/8"] } }) }),
      cluster({ auth, leafnodes: { service: { loadBalancerSourceRanges: ["10.0.0.0/8"] } } }),
    ],
  },
  {
    kind: "NatsCluster",
    message: "loadBalancerClass is set only when type is LoadBalancer",
    accept: [cluster({ gateway: gateway({ service: { type: "LoadBalancer", loadBalancerClass: "example.com/lb" } }) })],
    refuse: [cluster({ gateway: gateway({ service: { type: "NodePort", loadBalancerClass: "example.com/lb" } }) })],
  },
  {
    kind: "NatsCluster",
    message: "a source range must be a CIDR",
    accept: [
      cluster({
        gateway: gateway({
          service: { type: "LoadBalancer", loadBalancerSourceRanges: ["192.168.0.0/16", "2001:db8::/32"] },
        }),
      }),
    ],
    refuse: [
      cluster({ gateway: gateway({ service: { type: "LoadBalancer", loadBalancerSourceRanges: ["10.0.0.0/33"] } }) }),
      cluster({ gateway: gateway({ service: { type: "LoadBalancer", loadBalancerSourceRanges: ["somewhere"] } }) }),
    ],
  },
  {
    kind: "NatsOperator",
    message: "jwt and keys.identity are mutually exclusive",
    accept: [{ systemAccountRef: { name: "sys" }, keys: { ...identity, ...signing } }],
    refuse: [{ systemAccountRef: { name: "sys" }, jwt: "j", keys: { ...identity, ...signing } }],
  },
  {
    kind: "NatsOperator",
    message: "jwt requires at least one signing key",
    accept: [{ systemAccountRef: { name: "sys" }, jwt: "j", keys: signing }],
    refuse: [
      { systemAccountRef: { name: "sys" }, jwt: "j" },
      { systemAccountRef: { name: "sys" }, jwt: "j", keys: { signing: [] } },
    ],
  },
  ...(["NatsSystemAccount", "NatsAccount"] as const).flatMap((kind): CreateRuleCase[] => [
    {
      kind,
      message: "publicKey and keys.identity are mutually exclusive",
      accept: [account({ keys: { ...identity, ...signing } })],
      refuse: [account({ publicKey: "A1", keys: { ...identity, ...signing } })],
    },
    {
      kind,
      message: "publicKey requires at least one signing key",
      accept: [account({ publicKey: "A1", keys: signing })],
      refuse: [account({ publicKey: "A1" })],
    },
  ]),
  {
    kind: "NatsAccount",
    message: "jetstream limits are set either for the account or by tier",
    accept: [
      account({ limits: { jetstream: { streams: 10, diskStorage: "10Gi" } } }),
      account({
        limits: {
          jetstream: {
            tiers: [
              { name: "R1", streams: 5 },
              { name: "R3", streams: 2 },
            ],
            maxBytesRequired: false,
          },
        },
      }),
    ],
    refuse: [
      account({ limits: { jetstream: { tiers: [{ name: "R1", streams: 5 }], streams: 10 } } }),
      account({ limits: { jetstream: { tiers: [{ name: "R1" }], maxBytesRequired: true } } }),
    ],
  },
  {
    kind: "NatsAccount",
    message: "an export sets either preset alone, or name, type and subject",
    accept: [account({ exports: [stepdown] }), account({ exports: [exported()] })],
    refuse: [account({ exports: [{ ...stepdown, name: "x" }] }), account({ exports: [{ name: "x", type: "Stream" }] })],
  },
  {
    kind: "NatsAccount",
    message: "responseType is set only on a Service export",
    accept: [account({ exports: [exported({ responseType: "Stream" })] })],
    refuse: [account({ exports: [exported({ type: "Stream", responseType: "Singleton" })] })],
  },
  {
    kind: "NatsAccount",
    message: "importers are listed only on a Private export",
    accept: [account({ exports: [exported({ access: "Private", importers: [{ kind: "NatsAccount", name: "b" }] })] })],
    refuse: [
      account({ exports: [exported({ importers: [{ kind: "NatsAccount", name: "b" }] })] }),
      account({ exports: [exported({ access: "Public", importers: [{ kind: "NatsAccount", name: "b" }] })] }),
    ],
  },
  {
    kind: "NatsAccount",
    message: "an importer sets either kind and name, or publicKey",
    accept: [account({ exports: [exported({ access: "Private", importers: [{ publicKey: "A2" }] })] })],
    refuse: [
      account({
        exports: [exported({ access: "Private", importers: [{ publicKey: "A2", kind: "NatsAccount", name: "b" }] })],
      }),
      account({ exports: [exported({ access: "Private", importers: [{ kind: "NatsAccount" }] })] }),
    ],
  },
  {
    kind: "NatsAccount",
    message: "set exactly one of accountRef and publicKey",
    accept: [account({ imports: [{ accountRef: { kind: "NatsAccount", name: "b" }, export: "e" }] })],
    refuse: [
      account({ imports: [{ accountRef: { kind: "NatsAccount", name: "b" }, export: "e", publicKey: "A2" }] }),
      account({ imports: [{ localSubject: "x" }] }),
    ],
  },
  {
    kind: "NatsAccount",
    message: "export is named together with accountRef",
    accept: [account({ imports: [{ accountRef: { kind: "NatsAccount", name: "b" }, export: "e" }] })],
    refuse: [
      account({ imports: [{ accountRef: { kind: "NatsAccount", name: "b" } }] }),
      account({ imports: [{ publicKey: "A2", subject: "s", type: "Stream", export: "e" }] }),
    ],
  },
  {
    kind: "NatsAccount",
    message: "an import by publicKey sets subject and type",
    accept: [account({ imports: [{ publicKey: "A2", subject: "s.>", type: "Stream" }] })],
    refuse: [account({ imports: [{ publicKey: "A2", subject: "s.>" }] })],
  },
  {
    kind: "NatsAccount",
    message: "subject, type and activation are set only on an import by publicKey",
    accept: [
      account({
        imports: [
          { publicKey: "A2", subject: "s", type: "Service", activation: { secretKeyRef: { name: "tok", key: "jwt" } } },
        ],
      }),
    ],
    refuse: [account({ imports: [{ accountRef: { kind: "NatsAccount", name: "b" }, export: "e", subject: "s" }] })],
  },
  {
    kind: "NatsUser",
    message: "preset and permissions are mutually exclusive",
    accept: [sysUser({ preset: "auth-controller" }), user({ permissions: { publish: { allow: ["a"] } } })],
    refuse: [sysUser({ preset: "auth-controller", permissions: { publish: { allow: ["a"] } } })],
  },
  {
    kind: "NatsUser",
    message: "preset and connectionTypes are mutually exclusive",
    accept: [user({ connectionTypes: ["LEAFNODE"] })],
    refuse: [user({ preset: "leafnode", connectionTypes: ["LEAFNODE"] })],
  },
  {
    kind: "NatsUser",
    message: "publicKey and credentials are mutually exclusive",
    accept: [user({ publicKey: "U1" }), user({ credentials: { secretKeyRef: { name: "c" } } })],
    refuse: [user({ publicKey: "U1", credentials: { secretKeyRef: { name: "c" } } })],
  },
  {
    kind: "NatsUser",
    message: "a controller preset is for a NatsSystemAccount user",
    accept: [sysUser({ preset: "cluster-controller" }), user({ preset: "leafnode" })],
    refuse: [
      user({ preset: "cluster-controller" }),
      user({ preset: "jetstream-controller" }),
      user({ preset: "auth-controller" }),
    ],
  },
  {
    kind: "NatsUser",
    message: "the readonly preset is for a NatsAccount user",
    accept: [user({ preset: "readonly" })],
    refuse: [sysUser({ preset: "readonly" })],
  },
  {
    kind: "NatsUser",
    message: "role excludes permissions, connectionTypes and preset",
    accept: [user({ role: "reader" })],
    refuse: [
      user({ role: "reader", permissions: {} }),
      user({ role: "reader", connectionTypes: ["STANDARD"] }),
      user({ role: "reader", preset: "readonly" }),
    ],
  },
  {
    kind: "NatsConsumer",
    message: "set exactly one of stream and streamRef",
    accept: [{ ...conn, stream: "S" }, { streamRef: { name: "s" } }],
    refuse: [{ ...conn }, { ...conn, stream: "S", streamRef: { name: "s" } }],
  },
  {
    kind: "NatsConsumer",
    message: "connectionRef is required unless streamRef is set",
    accept: [{ streamRef: { name: "s" } }, { ...conn, stream: "S" }],
    refuse: [{ stream: "S" }],
  },
  {
    kind: "NatsBalancer",
    message: "a NatsBalancer moves leaders only; copies are moved by a NatsSystemBalancer with moves.placement",
    accept: [{ ...conn }, { ...conn, moves: { leader: true, placement: false } }],
    refuse: [{ ...conn, moves: { placement: true } }],
  },
  ...(["NatsBalancer", "NatsSystemBalancer"] as const).map((kind): CreateRuleCase => ({
    kind,
    message: "interval must be a positive duration",
    accept: [
      { ...conn, interval: "30s" },
      { ...conn, interval: "1h30m" },
    ],
    refuse: [
      { ...conn, interval: "0s" },
      { ...conn, interval: "-1m" },
    ],
  })),
];

const lb = (cls?: string): Spec => ({ type: "LoadBalancer", ...(cls ? { loadBalancerClass: cls } : {}) });

export const TRANSITION_RULES: readonly TransitionRuleCase[] = [
  {
    kind: "NatsCluster",
    message: "version moves at most one minor at a time, up or down",
    base: cluster({ version: "2.16.1" }),
    accept: [
      cluster({ version: "2.16.9" }),
      cluster({ version: "2.16.0" }),
      cluster({ version: "2.17.0" }),
      cluster({ version: "2.15.4" }),
    ],
    refuse: [cluster({ version: "2.18.0" }), cluster({ version: "3.16.1" })],
  },
  {
    kind: "NatsCluster",
    message: "loadBalancerClass cannot change while type stays LoadBalancer",
    base: cluster({ gateway: gateway({ service: lb("example.com/a") }) }),
    accept: [
      cluster({ gateway: gateway({ service: lb("example.com/a") }) }),
      cluster({ gateway: gateway({ service: { type: "ClusterIP" } }) }),
    ],
    refuse: [
      cluster({ gateway: gateway({ service: lb("example.com/b") }) }),
      cluster({ gateway: gateway({ service: lb() }) }),
    ],
  },
  {
    kind: "NatsCluster",
    message:
      "a JetStream NatsCluster cannot move between one server without a gateway (standalone JetStream) and " +
      "clustered JetStream: nats-server does not carry streams across; create a new NatsCluster and move the streams",
    base: cluster({ replicas: 1, jetstream: ephemeral }),
    accept: [cluster({ replicas: 1, jetstream: ephemeral, serverTags: { zone: "a" } }), cluster({ replicas: 3 })],
    refuse: [
      cluster({ replicas: 3, jetstream: ephemeral }),
      cluster({ replicas: 1, jetstream: ephemeral, gateway: gateway({ tls: secretRef }) }),
    ],
  },
  {
    kind: "NatsUser",
    message: "accountRef is immutable",
    base: user(),
    accept: [user({ permissions: { subscribe: { allow: [">"] } } })],
    refuse: [user({ accountRef: { kind: "NatsAccount", name: "other" } }), sysUser()],
  },
  ...(["NatsStream", "NatsKeyValue", "NatsObjectStore", "NatsClusterEvacuation"] as const).map(
    (kind): TransitionRuleCase => {
      const spec = kind === "NatsClusterEvacuation" ? evacuation : stream;
      return {
        kind,
        message: "connectionRef is immutable",
        base: spec(),
        accept: [spec()],
        refuse: [
          spec({ connectionRef: { name: "other" } }),
          spec({ connectionRef: { name: "conn", namespace: "elsewhere" } }),
        ],
      };
    },
  ),
  {
    kind: "NatsStream",
    message: "the stream name is immutable",
    base: stream({ name: "ORDERS" }),
    accept: [stream({ name: "ORDERS", description: "x" })],
    refuse: [stream({ name: "ORDERS2" }), stream()],
  },
  {
    kind: "NatsStream",
    message: "the stream name is immutable",
    base: stream(),
    accept: [(name) => stream({ name })],
    refuse: [stream({ name: "OTHER" })],
  },
  ...(["NatsKeyValue", "NatsObjectStore"] as const).flatMap((kind): TransitionRuleCase[] => [
    {
      kind,
      message: "the bucket name is immutable",
      base: stream({ name: "bucket" }),
      accept: [stream({ name: "bucket", description: "x" })],
      refuse: [stream({ name: "bucket2" })],
    },
    {
      kind,
      message: "storage is immutable",
      base: stream(),
      accept: [stream({ storage: "File" })],
      refuse: [],
    },
    {
      kind,
      message: "storage is immutable",
      base: stream({ storage: "File" }),
      accept: [stream({ storage: "File" }), stream()],
      refuse: [stream({ storage: "Memory" })],
    },
  ]),
  {
    kind: "NatsStream",
    message: "storage is immutable",
    base: stream({ storage: "Memory" }),
    accept: [stream({ storage: "Memory" }), stream()],
    refuse: [stream({ storage: "File" })],
  },
  {
    kind: "NatsStream",
    message: "retention cannot change to or from WorkQueue",
    base: stream({ retention: "Limits" }),
    accept: [stream({ retention: "Interest" })],
    refuse: [stream({ retention: "WorkQueue" })],
  },
  {
    kind: "NatsStream",
    message: "retention cannot change to or from WorkQueue",
    base: stream({ retention: "WorkQueue" }),
    accept: [stream({ retention: "WorkQueue" })],
    refuse: [stream({ retention: "Limits" })],
  },
  {
    kind: "NatsStream",
    message: "mirror cannot change",
    base: stream({ mirror: { name: "ORIGIN" } }),
    accept: [stream({ mirror: { name: "ORIGIN" } }), stream()],
    refuse: [stream({ mirror: { name: "OTHER" } }), stream({ mirror: { name: "ORIGIN", filterSubject: "a.>" } })],
  },
  ...(["sealed", "denyDelete", "denyPurge", "allowMsgTTL", "allowMsgSchedules"] as const).flatMap(
    (field): TransitionRuleCase[] => [
      {
        kind: "NatsStream",
        message: `${field} cannot be unset`,
        base: stream({ [field]: true }),
        accept: [stream({ [field]: true })],
        refuse: [stream({ [field]: false })],
      },
      {
        kind: "NatsStream",
        message: `${field} cannot be unset`,
        base: stream({ [field]: false }),
        accept: [stream({ [field]: true })],
        refuse: [],
      },
    ],
  ),
  {
    kind: "NatsStream",
    message: "allowMsgCounter is immutable",
    base: stream({ allowMsgCounter: false }),
    accept: [stream({ allowMsgCounter: false })],
    refuse: [stream({ allowMsgCounter: true })],
  },
  {
    kind: "NatsStream",
    message: "persistMode is immutable",
    base: stream({ persistMode: "Default" }),
    accept: [stream({ persistMode: "Default" })],
    refuse: [stream({ persistMode: "Async" })],
  },
  {
    kind: "NatsConsumer",
    message: "the consumer name is immutable",
    base: consumer({ name: "durable" }),
    accept: [consumer({ name: "durable", ackWait: "45s" })],
    refuse: [consumer({ name: "other" })],
  },
  {
    kind: "NatsConsumer",
    message: "connectionRef is immutable",
    base: consumer(),
    accept: [consumer()],
    refuse: [consumer({ connectionRef: { name: "other" } })],
  },
  {
    kind: "NatsConsumer",
    message: "connectionRef is immutable",
    base: { streamRef: { name: "s" } },
    accept: [{ streamRef: { name: "s" } }],
    refuse: [{ streamRef: { name: "s" }, ...conn }],
  },
  {
    kind: "NatsConsumer",
    message: "stream is immutable",
    base: consumer(),
    accept: [consumer({ stream: "S" })],
    refuse: [consumer({ stream: "T" })],
  },
  {
    kind: "NatsConsumer",
    message: "streamRef is immutable",
    base: { streamRef: { name: "s" } },
    accept: [{ streamRef: { name: "s" }, ackWait: "10s" }],
    refuse: [{ streamRef: { name: "t" } }],
  },
  ...(
    [
      ["deliverPolicy", "All", "New"],
      ["ackPolicy", "Explicit", "None"],
      ["replayPolicy", "Instant", "Original"],
      ["optStartSeq", 10, 20],
      ["optStartTime", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"],
      ["heartbeat", "1m", "2m"],
      ["flowControl", false, true],
      ["maxWaiting", 512, 1024],
    ] as const
  ).map(([field, before, after]): TransitionRuleCase => ({
    kind: "NatsConsumer",
    message: `${field} is immutable unless recreateOnImmutableChange is set`,
    base: consumer({ [field]: before }),
    accept: [
      consumer({ [field]: before, ackWait: "45s" }),
      consumer({ [field]: after, recreateOnImmutableChange: true }),
      consumer(),
      ...(field === "heartbeat" ? [consumer({ heartbeat: "60s" })] : []),
    ],
    refuse: [consumer({ [field]: after }), consumer({ [field]: after, recreateOnImmutableChange: false })],
  })),
  {
    kind: "NatsClusterEvacuation",
    message: "from is immutable",
    base: evacuation(),
    accept: [evacuation()],
    refuse: [evacuation({ from: { cluster: "other" } })],
  },
  {
    kind: "NatsClusterEvacuation",
    message: "to is immutable",
    base: evacuation(),
    accept: [evacuation()],
    refuse: [evacuation({ to: { serverTags: ["cluster:c"] } })],
  },
];
