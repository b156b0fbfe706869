// The static type of every kind's object, keyed by kind name.
import type { KindName } from "./kinds.ts";
import type { NatsOperatorTrust } from "./core/nats-operator-trust.ts";
import type { NatsAccountTrust } from "./core/nats-account-trust.ts";
import type { NatsConnection } from "./core/nats-connection.ts";
import type { NatsReferenceGrant } from "./core/nats-reference-grant.ts";
import type { NatsCluster } from "./cluster/nats-cluster.ts";
import type { NatsOperator } from "./auth/nats-operator.ts";
import type { NatsSystemAccount } from "./auth/nats-system-account.ts";
import type { NatsAccount } from "./auth/nats-account.ts";
import type { NatsUser } from "./auth/nats-user.ts";
import type { NatsStream } from "./jetstream/nats-stream.ts";
import type { NatsConsumer } from "./jetstream/nats-consumer.ts";
import type { NatsKeyValue } from "./jetstream/nats-key-value.ts";
import type { NatsObjectStore } from "./jetstream/nats-object-store.ts";
import type { NatsBalancer } from "./jetstream/nats-balancer.ts";
import type { NatsSystemBalancer } from "./jetstream/nats-system-balancer.ts";
import type { NatsClusterEvacuation } from "./jetstream/nats-cluster-evacuation.ts";

export interface ResourceTypes {
  NatsOperatorTrust: NatsOperatorTrust;
  NatsAccountTrust: NatsAccountTrust;
  NatsConnection: NatsConnection;
  NatsReferenceGrant: NatsReferenceGrant;
  NatsCluster: NatsCluster;
  NatsOperator: NatsOperator;
  NatsSystemAccount: NatsSystemAccount;
  NatsAccount: NatsAccount;
  NatsUser: NatsUser;
  NatsStream: NatsStream;
  NatsConsumer: NatsConsumer;
  NatsKeyValue: NatsKeyValue;
  NatsObjectStore: NatsObjectStore;
  NatsBalancer: NatsBalancer;
  NatsSystemBalancer: NatsSystemBalancer;
  NatsClusterEvacuation: NatsClusterEvacuation;
}

/** Compile-time check that every registered kind has a type. */
export type MissingResourceTypes = Exclude<KindName, keyof ResourceTypes>;
const _everyKindTyped: MissingResourceTypes extends never ? true : false = true;
void _everyKindTyped;

export type ResourceOf<K extends KindName> = ResourceTypes[K];
export type NatsResource = ResourceTypes[KindName];
