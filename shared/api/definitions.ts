// Every kind's definition, in registry order: the input of the code generator
// and of the validators.
import type { KindName } from "./kinds.ts";
import type { KindDefinition } from "./common/kind-definition.ts";
import { natsOperatorTrustDefinition } from "./core/nats-operator-trust.ts";
import { natsAccountTrustDefinition } from "./core/nats-account-trust.ts";
import { natsConnectionDefinition } from "./core/nats-connection.ts";
import { natsReferenceGrantDefinition } from "./core/nats-reference-grant.ts";
import { natsClusterDefinition } from "./cluster/nats-cluster.ts";
import { natsOperatorDefinition } from "./auth/nats-operator.ts";
import { natsSystemAccountDefinition } from "./auth/nats-system-account.ts";
import { natsAccountDefinition } from "./auth/nats-account.ts";
import { natsUserDefinition } from "./auth/nats-user.ts";
import { natsStreamDefinition } from "./jetstream/nats-stream.ts";
import { natsConsumerDefinition } from "./jetstream/nats-consumer.ts";
import { natsKeyValueDefinition } from "./jetstream/nats-key-value.ts";
import { natsObjectStoreDefinition } from "./jetstream/nats-object-store.ts";
import { natsBalancerDefinition } from "./jetstream/nats-balancer.ts";
import { natsSystemBalancerDefinition } from "./jetstream/nats-system-balancer.ts";
import { natsClusterEvacuationDefinition } from "./jetstream/nats-cluster-evacuation.ts";

export const KIND_DEFINITIONS: Readonly<Record<KindName, KindDefinition>> = {
  NatsOperatorTrust: natsOperatorTrustDefinition,
  NatsAccountTrust: natsAccountTrustDefinition,
  NatsConnection: natsConnectionDefinition,
  NatsReferenceGrant: natsReferenceGrantDefinition,
  NatsCluster: natsClusterDefinition,
  NatsOperator: natsOperatorDefinition,
  NatsSystemAccount: natsSystemAccountDefinition,
  NatsAccount: natsAccountDefinition,
  NatsUser: natsUserDefinition,
  NatsStream: natsStreamDefinition,
  NatsConsumer: natsConsumerDefinition,
  NatsKeyValue: natsKeyValueDefinition,
  NatsObjectStore: natsObjectStoreDefinition,
  NatsBalancer: natsBalancerDefinition,
  NatsSystemBalancer: natsSystemBalancerDefinition,
  NatsClusterEvacuation: natsClusterEvacuationDefinition,
};
