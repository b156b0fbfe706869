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
  "ScaleDownPending",
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

export const TRUST_REASONS = reasons("Mirrored", "Pending", "ReconcileError");

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
  "Unobserved",
  "UntrustedSigner",
  "TrustUnknown",
  "SignerTrusted",
  "RecoveringRevocations",
  "SeedLost",
  "NoSystemConnection",
  "PublicKeyInUse",
  "AccountNotAdmitted",
  "ExporterPending",
  "ReconcileError",
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
  "Yielding",
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

type ValuesOf<T> = T[keyof T];
export type Reason =
  | ValuesOf<typeof GRANT_REASONS>
  | ValuesOf<typeof CLUSTER_REASONS>
  | ValuesOf<typeof TRUST_REASONS>
  | ValuesOf<typeof CONNECTION_REASONS>
  | ValuesOf<typeof AUTH_REASONS>
  | ValuesOf<typeof JETSTREAM_REASONS>
  | ValuesOf<typeof BALANCER_REASONS>
  | ValuesOf<typeof EVACUATION_REASONS>;
