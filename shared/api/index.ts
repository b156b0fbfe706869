// The API in one import: registry, types, constants and validators. Kind
// modules can also be imported one by one (shared/api/<group>/<kind>.ts).
export * from "./groups.ts";
export * from "./kinds.ts";
export * from "./constants.ts";
export * from "./validate.ts";
export type * from "./types.ts";
export type { Condition } from "./common/conditions.ts";
export type { ObjectReference, SecretReference, Credentials, CertificateAuthority } from "./common/references.ts";
export type { NatsOperatorTrustSpec, NatsOperatorTrustStatus } from "./core/nats-operator-trust.ts";
export type { NatsAccountTrustSpec, NatsAccountTrustStatus } from "./core/nats-account-trust.ts";
export type { NatsConnectionSpec, NatsConnectionStatus } from "./core/nats-connection.ts";
export type { NatsReferenceGrantSpec } from "./core/nats-reference-grant.ts";
export type { NatsClusterSpec } from "./cluster/nats-cluster-spec.ts";
export type { NatsClusterStatus } from "./cluster/nats-cluster-status.ts";
export type { NatsOperatorSpec, NatsOperatorStatus } from "./auth/nats-operator.ts";
export type { NatsSystemAccountSpec, NatsSystemAccountStatus } from "./auth/nats-system-account.ts";
export type { NatsAccountSpec, NatsAccountStatus } from "./auth/nats-account.ts";
export type { NatsUserSpec, NatsUserStatus } from "./auth/nats-user.ts";
export type { NatsStreamSpec, NatsStreamStatus } from "./jetstream/nats-stream.ts";
export type { NatsConsumerSpec, NatsConsumerStatus } from "./jetstream/nats-consumer.ts";
export type { NatsKeyValueSpec, NatsKeyValueStatus } from "./jetstream/nats-key-value.ts";
export type { NatsObjectStoreSpec, NatsObjectStoreStatus } from "./jetstream/nats-object-store.ts";
export type { NatsBalancerSpec, NatsBalancerStatus } from "./jetstream/nats-balancer.ts";
export type { NatsSystemBalancerSpec, NatsSystemBalancerStatus } from "./jetstream/nats-system-balancer.ts";
export type { NatsClusterEvacuationSpec, NatsClusterEvacuationStatus } from "./jetstream/nats-cluster-evacuation.ts";
