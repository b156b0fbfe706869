// Which conditions each kind carries and the reasons each may read: the
// contract the functions write and the reference documentation lists.
import type { KindName } from "../kinds.ts";
import type { ConditionType } from "./conditions.ts";
import type { Reason } from "./reasons.ts";

export type ConditionVocabulary = Partial<Record<ConditionType, readonly Reason[]>>;

const TRUST: ConditionVocabulary = {
  Ready: ["Mirrored", "ReferenceNotPermitted", "ReferenceNotFound", "Pending", "ReconcileError"],
  ReferencesResolved: ["Resolved", "NoGrant"],
};

const ACCOUNT: ConditionVocabulary = {
  Ready: [
    "Distributed", "Signed", "KeysPending", "InvalidKeys", "InvalidJWT", "ReferenceNotFound", "ReferenceNotPermitted",
    "Pending", "NotReferenced", "OperatorMismatch", "SecretConflict", "SeedLost", "PublicKeyInUse", "ExporterPending",
    "ImportsUnresolved", "AdoptionDropsClaims", "TierInexpressible", "ActivationsUnsigned", "RecoveringRevocations",
    "ReconcileError",
  ],
  ReferencesResolved: ["Resolved", "AllImportsResolved", "ImportsUnresolved", "ExporterPending", "NoGrant"],
  Distributed: [
    "AllServersCurrent", "ServersBehind", "Unreachable", "Unobserved", "UntrustedSigner", "TrustUnknown", "NoSystemConnection",
  ],
  RevocationsUnrecovered: ["RecoveringRevocations"],
};

const JETSTREAM_OBJECT: ConditionVocabulary = {
  Ready: [
    "Synced", "Terminal", "SyncFailed", "ObserveFailed", "NotFound", "ConnectionNotFound", "ConnectionFailed",
    "ReferenceNotPermitted",
  ],
  Synced: ["MatchesSpec", "DriftCorrected", "SyncFailed", "Moving"],
  Terminal: ["ExistsUnowned", "OwnedByOther", "Rejected", "NotABucket", "ImmutableField"],
  Adopted: ["FoundUnowned", "NotFound"],
  ReferencesResolved: ["NoGrant"],
};

const BALANCER: ConditionVocabulary = {
  Ready: [
    "Balancing", "NotClustered", "DuplicateBalancer", "PassFailed", "ConnectionNotFound", "ConnectionFailed",
    "ReferenceNotPermitted",
  ],
  Holding: ["Settled", "Unsettled", "MovePending", "MoveLeaseHeld", "Yielding", "YieldingToSystemBalancer"],
};

export const CONDITION_VOCABULARY: Readonly<Record<KindName, ConditionVocabulary>> = {
  NatsOperatorTrust: TRUST,
  NatsAccountTrust: TRUST,
  NatsConnection: {
    Ready: ["Connected", "Disconnected", "SecretNotFound", "InvalidSecret", "ConnectFailed"],
  },
  NatsReferenceGrant: {},
  NatsCluster: {
    Ready: ["AllServersReady", "QuorumAvailable", "QuorumUnavailable", "GatewayWithoutTLS", "ReconcileFailed"],
    Settled: ["AllGroupsCurrent", "ServersSilent", "GroupsLeaderless", "MembersOffline", "GroupsCatchingUp", "ObservationFailed"],
    Progressing: [
      "Creating", "ClaimTerminating", "RollingRestart", "ReloadPending", "ScalingDown", "ScaleDownPending", "ReplacingServer",
      "ClientCertificateNotReady", "RouteCertificateNotReady", "GatewayCertificateNotReady", "LeafnodesCertificateNotReady",
      "UpToDate", "GateBlocked", "RolloutPaused", "ScaleDownBlocked", "ReplacementBlocked", "UnsupportedSpec",
      "ReconcileFailed", "TrustNotFound", "TrustNotReady", "TrustInvalid", "AccountTrustNotFound", "AccountTrustNotReady",
      "AccountTrustInvalid", "GatewayWithoutTLS", "AuthChangeBlocked", "OwnMetaGroup", "ObservationFailed",
    ],
    GatewaysConnected: ["AllMembersReachable", "MembersUnreachable", "ObservationFailed"],
    LeafnodesConnected: [
      "AllRemotesConnected", "RemotesDisconnected", "LeafRemoteNotFound", "LeafRemoteNotReady", "LeafRemoteInvalid",
      "LeafnodesCertificateNotReady",
    ],
    Deleting: ["JetStreamDataRemains", "ObservationFailed", "NoJetStreamData"],
    ReferencesResolved: ["Resolved", "NoGrant"],
  },
  NatsOperator: {
    Ready: [
      "Signed", "KeysPending", "InvalidKeys", "InvalidJWT", "ReferenceNotFound", "ReferenceNotPermitted", "SecretConflict",
      "SeedLost", "AdoptionDropsClaims", "ReconcileError",
    ],
    ReferencesResolved: ["Resolved", "NoGrant"],
    RetiringKeysInUse: ["InUse", "NoneInUse"],
    RevocationsUnrecovered: ["RecoveringRevocations"],
    SigningKeyUntrusted: ["UntrustedSigner", "SignerTrusted", "TrustUnknown"],
  },
  NatsSystemAccount: ACCOUNT,
  NatsAccount: ACCOUNT,
  NatsUser: {
    Ready: [
      "Signed", "KeysPending", "InvalidKeys", "ReferenceNotFound", "ReferenceNotPermitted", "SecretConflict",
      "PublicKeyInUse", "AccountNotAdmitted", "Revoking", "Distributing", "Kicking", "ReconcileError",
    ],
    ReferencesResolved: ["Resolved", "NoGrant"],
    Distributed: ["NoSystemConnection"],
  },
  NatsStream: JETSTREAM_OBJECT,
  NatsConsumer: { ...JETSTREAM_OBJECT, Ready: [...(JETSTREAM_OBJECT.Ready ?? []), "StreamNotFound", "StreamNotReady"] },
  NatsKeyValue: JETSTREAM_OBJECT,
  NatsObjectStore: JETSTREAM_OBJECT,
  NatsBalancer: { ...BALANCER, Overlapping: ["PoolsDisjoint", "PoolsOverlap"] },
  NatsSystemBalancer: BALANCER,
  NatsClusterEvacuation: {
    Ready: [
      "Evacuated", "Moving", "PinnedObjects", "AwaitingOwners", "TargetTagsInSource", "MoveRefused", "PassFailed",
      "ServersDown", "ConnectionNotFound", "ConnectionFailed", "ReferenceNotPermitted",
    ],
    Progressing: ["Moving", "NothingMovable", "Evacuated", "TargetTagsInSource", "ServersDown"],
  },
};
