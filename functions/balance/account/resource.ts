// The NatsBalancer (an account balancer) as the function reads it: the API schema's types.
import { KINDS, type NatsBalancer as BalancerResource, type NatsBalancerStatus } from "../../../shared/api/index.ts";
import type { KubeObject, ObjectMeta } from "../../../shared/kube/index.ts";

export type { NatsBalancerStatus };
/** The schema's type, as the API server returns it: named and namespaced. */
export type NatsBalancer = Omit<BalancerResource, "metadata"> &
  KubeObject & { metadata: ObjectMeta & { name: string; namespace: string } };
export type PoolStatus = NonNullable<NatsBalancerStatus["pools"]>[number];

export const ACCOUNT_BALANCER = KINDS.NatsBalancer;

/** The lease holder's name, and the balancer in messages. */
export const describeAccountBalancer = (b: NatsBalancer) => `NatsBalancer ${b.metadata.namespace}/${b.metadata.name}`;
