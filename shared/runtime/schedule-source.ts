// The PingSource behind a schedule, and the two writes that keep or end it. Only the runtime's
// schedule keeper (shared/runtime/schedule-keeper.ts) calls these: functions declare schedules in
// their outcome instead (a lint rule keeps functions/ from importing this module).
import type { Kube } from "../kube/client.ts";
import { controllerReference, type KubeObject } from "../kube/object.ts";
import type { PingSchedule, ScheduleId } from "./schedule.ts";

/** The parts of a PingSource (sources.knative.dev/v1) that shape its events. */
export interface PingSourceSpec {
  schedule?: string;
  /** The zone the schedule is read in; the operator always writes UTC, which is all the local runner reads. */
  timezone?: string;
  contentType?: string;
  data?: string;
  ceOverrides?: { extensions?: Record<string, string> };
}

export type PingSourceObject = KubeObject & { spec: PingSourceSpec & { sink: unknown } };

const fieldManager = "nats-operator/schedule";

export const pingSourceType = { apiVersion: "sources.knative.dev/v1", kind: "PingSource" } as const;

/** The PingSource ticking `cron` (in UTC) for a schedule, sinking into the operator's Broker. */
export function pingSourceFor(
  schedule: PingSchedule,
  cron: string,
  brokerNamespace = process.env.BROKER_NAMESPACE ?? "nats-operator",
): PingSourceObject {
  return {
    ...pingSourceType,
    metadata: {
      name: schedule.name,
      namespace: schedule.namespace,
      labels: { "app.kubernetes.io/managed-by": "nats-operator", "nats-operator.io/target": schedule.target },
      ...(schedule.scope.kind === "object"
        ? { ownerReferences: [{ ...controllerReference(schedule.scope.owner), blockOwnerDeletion: false }] }
        : {}),
    },
    spec: {
      schedule: cron,
      // The crons are computed in UTC (a certificate's due minute); without this, Knative would read
      // them in the adapter's local zone.
      timezone: "UTC",
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
export async function keepSchedule(kube: Kube, source: PingSourceObject): Promise<void> {
  await kube.apply(source, fieldManager);
}

/** Removes the PingSource, so an idle namespace gets no ticks; false when there was none. */
export async function dropSchedule(kube: Kube, schedule: ScheduleId): Promise<boolean> {
  return kube.delete({ ...pingSourceType, namespace: schedule.namespace, name: schedule.name });
}
