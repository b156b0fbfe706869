// The tick that re-signs an expiring account JWT at half its lifetime: one PingSource per such
// account, owned by it (so it goes with it), firing once at the renewal minute. An account whose
// JWTs never expire has none.
import { keepPolling, type ScheduleDecision, stopPolling } from "../../../shared/runtime/index.ts";
import type { NatsAccount } from "../objects.ts";

export const renewalScheduleName = (account: string): string => `${account}-account-renewal`;

/** A cron firing at `at`'s minute (UTC) of that day, a minute late so the JWT is found due. */
export function renewalCron(at: Date): string {
  const t = new Date(at.getTime() + 60_000);
  return `${t.getUTCMinutes()} ${t.getUTCHours()} ${t.getUTCDate()} ${t.getUTCMonth() + 1} *`;
}

export function renewalTick(account: NatsAccount, at: Date | undefined): ScheduleDecision {
  const id = { namespace: account.metadata.namespace, name: renewalScheduleName(account.metadata.name) };
  if (!at) return stopPolling(id);
  return keepPolling(
    {
      ...id,
      target: "sign-account",
      work: { namespace: account.metadata.namespace, kind: "NatsAccount", name: account.metadata.name },
      scope: { kind: "object", owner: account },
    },
    { cron: renewalCron(at) },
  );
}
