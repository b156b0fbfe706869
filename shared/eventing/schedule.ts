import type { Kube } from "../kube/client.ts";
import { controllerReference, type KubeObject } from "../kube/object.ts";
import type { PingSourceSpec } from "./ping-event.ts";

/** A recurring poke of one function, kept only while there is work to poll. */
export interface Schedule {
  namespace: string;
  /** Deterministic, so concurrent deliveries converge on one PingSource. */
  name: string;
  /** Cron, optionally with a leading seconds field (`*\/10 * * * * *` every 10 s). */
  cron: string;
  /** The function the ticks are for; Triggers route on this `target` extension. */
  target: string;
  /** JSON the tick carries, naming the work. */
  work: Record<string, unknown>;
  /** Owner, so the schedule goes when the object it polls for goes. */
  owner?: KubeObject;
}

const fieldManager = "nats-operator/schedule";

/** The PingSource for a schedule, sinking into the operator's Broker. */
export function pingSourceFor(
  schedule: Schedule,
  brokerNamespace = process.env.BROKER_NAMESPACE ?? "nats-operator",
): KubeObject & { spec: PingSourceSpec & { sink: unknown } } {
  return {
    apiVersion: "sources.knative.dev/v1",
    kind: "PingSource",
    metadata: {
      name: schedule.name,
      namespace: schedule.namespace,
      labels: { "app.kubernetes.io/managed-by": "nats-operator", "nats-operator.io/target": schedule.target },
      ...(schedule.owner
        ? { ownerReferences: [{ ...controllerReference(schedule.owner), blockOwnerDeletion: false }] }
        : {}),
    },
    spec: {
      schedule: schedule.cron,
      contentType: "application/json",
      data: JSON.stringify(schedule.work),
      ceOverrides: { extensions: { target: schedule.target } },
      sink: {
        ref: {
          apiVersion: "eventing.knative.dev/v1",
          kind: "Broker",
          name: "nats-operator",
          namespace: brokerNamespace,
        },
      },
    },
  };
}

/** Creates or updates the PingSource (server-side apply: repeating it changes nothing). */
export async function keepSchedule(kube: Kube, schedule: Schedule): Promise<void> {
  await kube.apply(pingSourceFor(schedule), fieldManager);
}

/** Removes the PingSource once the work is done, so an idle namespace gets no ticks. */
export async function dropSchedule(kube: Kube, namespace: string, name: string): Promise<void> {
  await kube.delete({ apiVersion: "sources.knative.dev/v1", kind: "PingSource", namespace, name });
}
