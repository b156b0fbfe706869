// Condition reasons, one object per family of kinds. A reason string may
// appear in several families (ReferenceNotPermitted, ObservationFailed, ...).

const reasons = <const Names extends readonly string[]>(...names: Names) =>
  Object.freeze(Object.fromEntries(names.map((n) => [n, n]))) as { readonly [N in Names[number]]: N };

/** References across namespaces (every kind). */
export const GRANT_REASONS = reasons("Resolved", "NoGrant", "ReferenceNotPermitted", "ReferenceNotFound");

export const CLUSTER_REASONS = reasons(
  // Ready
  "AllServersReady",
  "QuorumAvailable",
  "QuorumUnavailable",
  "GatewayWithoutTLS",
  "ReconcileFailed",
  // Ready=False: the StatefulSet controller cannot create a server's pod (or its claim) because the
  // API server refuses it: the namespace's Pod Security level, a quota, an admission webhook.
  "PodRefused",
  // Ready=False: a container of a server's pod cannot get its image (not on the node, not pullable).
  "ImageUnavailable",
  // Ready=False: a container of a server's pod was killed for going over its memory limit.
  "OOMKilled",
  // Ready=False: a container of a server's pod keeps exiting, and the kubelet backs off restarting it.
  "CrashLooping",
  // Settled
  "AllGroupsCurrent",
  "ServersSilent",
  "GroupsLeaderless",
  "MembersOffline",
  "GroupsCatchingUp",
  "ObservationFailed",
  // Progressing, active
  "Creating",
  "ClaimTerminating",
  "RollingRestart",
  "ReloadPending",
  "ScalingDown",
  "ReplacingServer",
  "ClientCertificateNotReady",
  "RouteCertificateNotReady",
  "GatewayCertificateNotReady",
  "LeafnodesCertificateNotReady",
  // Progressing, at rest or held
  "UpToDate",
  "GateBlocked",
  "RolloutPaused",
  "ScaleDownBlocked",
  "ReplacementBlocked",
  "UnsupportedSpec",
  "TrustNotFound",
  "TrustNotReady",
  "TrustInvalid",
  "AccountTrustNotFound",
  "AccountTrustNotReady",
  "AccountTrustInvalid",
  "AuthChangeBlocked",
  // restart-all would empty every server's ephemeral (emptyDir) JetStream store at once.
  "EphemeralRestartAllBlocked",
  "OwnMetaGroup",
  // GatewaysConnected
  "AllMembersReachable",
  "MembersUnreachable",
  // LeafnodesConnected
  "AllRemotesConnected",
  "RemotesDisconnected",
  "LeafRemoteNotFound",
  "LeafRemoteNotReady",
  "LeafRemoteInvalid",
  // Deleting
  "JetStreamDataRemains",
  "NoJetStreamData",
);

export const TRUST_REASONS = reasons("Mirrored", "Pending");

export const CONNECTION_REASONS = reasons(
  "Connected",
  "Disconnected",
  "SecretNotFound",
  "InvalidSecret",
  "ConnectFailed",
);

export const AUTH_REASONS = reasons(
  "Signed",
  "KeysPending",
  "InvalidKeys",
  "InvalidJWT",
  "Pending",
  "NotReferenced",
  "OperatorMismatch",
  "AllImportsResolved",
  "ImportsUnresolved",
  "InUse",
  "NoneInUse",
  "SecretConflict",
  "Revoking",
  "Distributing",
  "Kicking",
  "Distributed",
  "AllServersCurrent",
  "ServersBehind",
  "Unreachable",
  // Distributed=False: no JWT is signed yet, so there is nothing to push.
  "NotSigned",
  // Distributed=False: a server holds a JWT newer than the one signed, so this one is not pushed.
  "NewerJWTHeld",
  // Distributed=False: a server refused the push of the JWT.
  "PushRefused",
  // Distributed=False: a deleted account's JWT is still held by a server, and the delete is sent.
  "Deleting",
  // Distributed=False: a server refused the delete of a deleted account's JWT.
  "DeleteRefused",
  // Distributed=False: an account no longer admitted to its operator, its JWT taken off the servers.
  "Withdrawn",
  // Distributed=False: signed by an operator signing key some server's trusted operator does not
  // list; SigningKeyUntrusted=True on the NatsOperator (A10).
  "UntrustedSigner",
  // SigningKeyUntrusted=False: every roster server's trusted operator lists the signing key.
  "SignerTrusted",
  // SigningKeyUntrusted=Unknown: a server did not answer VARZ, or trusts no operator JWT of the key.
  "TrustUnknown",
  "RecoveringRevocations",
  // RevocationsUnrecovered=True: a server did not answer which JWT it holds, so revocations may be missing.
  "ServersUnanswered",
  // RevocationsUnrecovered=False: the revocations of the JWT the servers hold are signed in, or none was held.
  "Recovered",
  "SeedLost",
  "NoSystemConnection",
  "PublicKeyInUse",
  "AccountNotAdmitted",
  // Ready=False: a NatsUser names a role no signing key of its account has, so it is not signed.
  "RoleNotFound",
  "ExporterPending",
  "AdoptionDropsClaims",
  "TierInexpressible",
  "ActivationsUnsigned",
);

export const JETSTREAM_REASONS = reasons(
  // Ready
  "Synced",
  "Terminal",
  "SyncFailed",
  "ObserveFailed",
  "NotFound",
  "ConnectionNotFound",
  "ConnectionFailed",
  "StreamNotFound",
  "StreamNotReady",
  // Ready=False (and Synced=False): a NatsStream's stream, created or adopted before, is gone on the
  // server, and spec.onLoss Hold keeps it from being recreated empty.
  "StreamLost",
  // Synced
  "MatchesSpec",
  "DriftCorrected",
  "Moving",
  // Terminal
  "ExistsUnowned",
  "OwnedByOther",
  "Rejected",
  "NotABucket",
  "ImmutableField",
  // Adopted
  "FoundUnowned",
);

export const BALANCER_REASONS = reasons(
  "Balancing",
  "NotClustered",
  "DuplicateBalancer",
  "PassFailed",
  // Ours: a connection that is not a system user, an interval that is not positive, and Holding
  // while Ready is False.
  "NotSystemUser",
  "InvalidInterval",
  "NotObserved",
  "Settled",
  "Unsettled",
  "MovePending",
  "MoveLeaseHeld",
  "YieldingToSystemBalancer",
  // Overlapping: PoolsOverlap is our name for the True case, which the reference leaves unnamed.
  "PoolsDisjoint",
  "PoolsOverlap",
);

export const EVACUATION_REASONS = reasons(
  "Evacuated",
  "Moving",
  "PinnedObjects",
  "AwaitingOwners",
  "TargetTagsInSource",
  "NoTargetServers",
  "MoveRefused",
  "PassFailed",
  "ServersDown",
  "NothingMovable",
);

/** The runtime's own: `Stalled=True` while the API server refuses a request for good (400, 403, 422). */
export const RUNTIME_REASONS = reasons("RequestRefused");

type ValuesOf<T> = T[keyof T];
export type Reason =
  | ValuesOf<typeof GRANT_REASONS>
  | ValuesOf<typeof CLUSTER_REASONS>
  | ValuesOf<typeof TRUST_REASONS>
  | ValuesOf<typeof CONNECTION_REASONS>
  | ValuesOf<typeof AUTH_REASONS>
  | ValuesOf<typeof JETSTREAM_REASONS>
  | ValuesOf<typeof BALANCER_REASONS>
  | ValuesOf<typeof EVACUATION_REASONS>
  | ValuesOf<typeof RUNTIME_REASONS>;

const EVERY_REASON: ReadonlySet<string> = new Set<string>(
  [
    GRANT_REASONS,
    CLUSTER_REASONS,
    TRUST_REASONS,
    CONNECTION_REASONS,
    AUTH_REASONS,
    JETSTREAM_REASONS,
    BALANCER_REASONS,
    EVACUATION_REASONS,
    RUNTIME_REASONS,
  ].flatMap((family) => Object.values(family)),
);

/** Whether a string read back from the cluster (an annotation, a condition) is a reason of the vocabulary. */
export const isReason = (value: string): value is Reason => EVERY_REASON.has(value);
