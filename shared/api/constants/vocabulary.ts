// Which conditions each kind carries and the reasons each may read: the
// contract the functions write and the reference documentation lists.
import type { KindName } from "../kinds.ts";
import type { ConditionType } from "./conditions.ts";
import type { Reason } from "./reasons.ts";

export type ConditionVocabulary = Partial<Record<ConditionType, readonly Reason[]>>;

const TRUST: ConditionVocabulary = {
  Ready: ["Mirrored", "ReferenceNotPermitted", "ReferenceNotFound", "Pending"],
  ReferencesResolved: ["Resolved", "NoGrant"],
};

const ACCOUNT: ConditionVocabulary = {
  Ready: [
    "Distributed",
    "Signed",
    "KeysPending",
    "InvalidKeys",
    "InvalidJWT",
    "ReferenceNotFound",
    "ReferenceNotPermitted",
    "Pending",
    "NotReferenced",
    "OperatorMismatch",
    "SecretConflict",
    "SeedLost",
    "PublicKeyInUse",
    "ExporterPending",
    "ImportsUnresolved",
    "AdoptionDropsClaims",
    "TierInexpressible",
    "ActivationsUnsigned",
    "RecoveringRevocations",
  ],
  ReferencesResolved: ["Resolved", "AllImportsResolved", "ImportsUnresolved", "ExporterPending", "NoGrant"],
  Distributed: [
    "AllServersCurrent",
    "ServersBehind",
    "Unreachable",
    "NoSystemConnection",
    "NotSigned",
    "NewerJWTHeld",
    "PushRefused",
    "UntrustedSigner",
    "Deleting",
    "DeleteRefused",
    "Withdrawn",
  ],
  RevocationsUnrecovered: ["RecoveringRevocations", "ServersUnanswered", "Recovered"],
};

const JETSTREAM_OBJECT: ConditionVocabulary = {
  Ready: [
    "Synced",
    "Terminal",
    "SyncFailed",
    "ObserveFailed",
    "NotFound",
    "ConnectionNotFound",
    "ConnectionFailed",
    "ReferenceNotPermitted",
    "StreamLost",
  ],
  Synced: ["MatchesSpec", "DriftCorrected", "SyncFailed", "Moving", "StreamLost"],
  Terminal: ["ExistsUnowned", "OwnedByOther", "Rejected", "NotABucket", "ImmutableField"],
  Adopted: ["FoundUnowned", "NotFound"],
  ReferencesResolved: ["NoGrant"],
};

const BALANCER: ConditionVocabulary = {
  Ready: [
    "Balancing",
    "NotClustered",
    "NotSystemUser",
    "DuplicateBalancer",
    "PassFailed",
    "InvalidInterval",
    "ConnectionNotFound",
    "ReferenceNotPermitted",
    "SecretNotFound",
    "InvalidSecret",
    "ConnectFailed",
  ],
  Holding: ["Settled", "Unsettled", "MovePending", "MoveLeaseHeld", "NotObserved", "YieldingToSystemBalancer"],
};

/**
 * `Stalled`, the runtime's own condition (shared/runtime/refusal.ts): True while the API server
 * refuses a request the object's reconcile makes, on every kind that carries conditions.
 */
const STALLED: ConditionVocabulary = { Stalled: ["RequestRefused"] };

export const CONDITION_VOCABULARY: Readonly<Record<KindName, ConditionVocabulary>> = {
  NatsOperatorTrust: { ...TRUST, ...STALLED },
  NatsAccountTrust: { ...TRUST, ...STALLED },
  NatsConnection: {
    Ready: ["Connected", "Disconnected", "SecretNotFound", "InvalidSecret", "ConnectFailed"],
    ...STALLED,
  },
  NatsReferenceGrant: {},
  NatsCluster: {
    Ready: [
      "AllServersReady",
      "QuorumAvailable",
      "QuorumUnavailable",
      "PodRefused",
      "ImageUnavailable",
      "OOMKilled",
      "CrashLooping",
      "GatewayWithoutTLS",
      "ReconcileFailed",
    ],
    Settled: [
      "AllGroupsCurrent",
      "ServersSilent",
      "GroupsLeaderless",
      "MembersOffline",
      "GroupsCatchingUp",
      "ObservationFailed",
    ],
    Progressing: [
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
      "UpToDate",
      "GateBlocked",
      "RolloutPaused",
      "ScaleDownBlocked",
      "ReplacementBlocked",
      "UnsupportedSpec",
      "ReconcileFailed",
      "TrustNotFound",
      "TrustNotReady",
      "TrustInvalid",
      "AccountTrustNotFound",
      "AccountTrustNotReady",
      "AccountTrustInvalid",
      "NoGrant",
      "GatewayWithoutTLS",
      "AuthChangeBlocked",
      "EphemeralRestartAllBlocked",
      "OwnMetaGroup",
      "ObservationFailed",
    ],
    GatewaysConnected: ["AllMembersReachable", "MembersUnreachable", "ObservationFailed"],
    LeafnodesConnected: [
      "AllRemotesConnected",
      "RemotesDisconnected",
      "LeafRemoteNotFound",
      "LeafRemoteNotReady",
      "LeafRemoteInvalid",
      "NoGrant",
    ],
    Deleting: ["JetStreamDataRemains", "ObservationFailed", "NoJetStreamData"],
    ReferencesResolved: ["Resolved", "NoGrant"],
    ...STALLED,
  },
  NatsOperator: {
    Ready: [
      "Signed",
      "KeysPending",
      "InvalidKeys",
      "InvalidJWT",
      "ReferenceNotFound",
      "ReferenceNotPermitted",
      "SecretConflict",
      "SeedLost",
      "AdoptionDropsClaims",
    ],
    ReferencesResolved: ["Resolved", "NoGrant"],
    RetiringKeysInUse: ["InUse", "NoneInUse"],
    RevocationsUnrecovered: ["RecoveringRevocations", "ServersUnanswered", "Recovered"],
    SigningKeyUntrusted: ["UntrustedSigner", "SignerTrusted", "TrustUnknown"],
    ...STALLED,
  },
  NatsSystemAccount: { ...ACCOUNT, ...STALLED },
  NatsAccount: { ...ACCOUNT, ...STALLED },
  NatsUser: {
    Ready: [
      "Signed",
      "KeysPending",
      "InvalidKeys",
      "ReferenceNotFound",
      "ReferenceNotPermitted",
      "SecretConflict",
      "PublicKeyInUse",
      "AccountNotAdmitted",
      "RoleNotFound",
      "Pending",
    ],
    ReferencesResolved: ["Resolved", "NoGrant"],
    // Whether its creds work on every server: the account JWT it is valid under held by each
    // (AllServersCurrent, Distributing, NotSigned). A deleted user's key on its way out: revoked in
    // the account's JWT, that JWT on every server, its connections closed.
    Distributed: ["AllServersCurrent", "Distributing", "NotSigned", "Revoking", "Kicking", "NoSystemConnection"],
    ...STALLED,
  },
  NatsStream: { ...JETSTREAM_OBJECT, ...STALLED },
  NatsConsumer: {
    ...JETSTREAM_OBJECT,
    Ready: [...(JETSTREAM_OBJECT.Ready ?? []), "StreamNotFound", "StreamNotReady"],
    ...STALLED,
  },
  NatsKeyValue: { ...JETSTREAM_OBJECT, ...STALLED },
  NatsObjectStore: { ...JETSTREAM_OBJECT, ...STALLED },
  NatsBalancer: {
    ...BALANCER,
    // Overlapping pools hold every move until the selectors are fixed.
    Holding: [...(BALANCER.Holding ?? []), "PoolsOverlap"],
    Overlapping: ["PoolsDisjoint", "PoolsOverlap"],
    ...STALLED,
  },
  NatsSystemBalancer: { ...BALANCER, ...STALLED },
  NatsClusterEvacuation: {
    Ready: [
      "Evacuated",
      "Moving",
      "PinnedObjects",
      "AwaitingOwners",
      "TargetTagsInSource",
      "NoTargetServers",
      "MoveRefused",
      "PassFailed",
      "ServersDown",
      "ConnectionNotFound",
      "ReferenceNotPermitted",
      "SecretNotFound",
      "InvalidSecret",
      "ConnectFailed",
    ],
    // A pass that cannot read the source says why on both conditions.
    Progressing: [
      "Moving",
      "NothingMovable",
      "Evacuated",
      "TargetTagsInSource",
      "ServersDown",
      "PassFailed",
      "ConnectionNotFound",
      "ReferenceNotPermitted",
      "SecretNotFound",
      "InvalidSecret",
      "ConnectFailed",
    ],
    ...STALLED,
  },
};
