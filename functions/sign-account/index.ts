// sign-account: keys, operator, account and user JWTs, creds Secrets, and the reference-form
// NatsOperatorTrust. Each object is reconciled in the observe, decide, act shape, then the objects
// that read it (dependents.ts), in the same delivery.
import type { EventRecorder } from "../../shared/kube/events.ts";
import type { OperatorFunction } from "../../shared/runtime/function.ts";
import { conflict, done, retry, skipped, withSchedules, type Outcome } from "../../shared/runtime/outcome.ts";
import type { ScheduleDecision } from "../../shared/runtime/schedule.ts";
import { dependentsOf, type Dependent } from "./dependents.ts";
import { describeSubject } from "./objects.ts";
import { reconcile } from "./reconcile.ts";
import { closeSystemConnections, newRosterPolls } from "./servers/system-connection.ts";
import { resolveTarget } from "./target.ts";

/** A bound on one delivery's fan-out; the rest is reached by the objects' own events. */
const MOST_OBJECTS = 500;

export const signAccount: OperatorFunction = {
  name: "sign-account",
  kinds: [
    "NatsOperator.auth.nats-operator.io",
    "NatsSystemAccount.auth.nats-operator.io",
    "NatsAccount.auth.nats-operator.io",
    "NatsUser.auth.nats-operator.io",
    "NatsOperatorTrust.nats-operator.io",
    "NatsAccountTrust.nats-operator.io",
    "NatsReferenceGrant.nats-operator.io",
    "Secret.",
  ],
  handlesPings: true,
  owns: [
    "NatsOperator.auth.nats-operator.io",
    "NatsSystemAccount.auth.nats-operator.io",
    "NatsAccount.auth.nats-operator.io",
    "NatsUser.auth.nats-operator.io",
  ],
  async handle(context) {
    const kube = await context.kube();
    const target = await resolveTarget(kube, context.event);
    if (target.kind === "none") return skipped(target.reason);
    // The recorder is made on the first Event only: most deliveries record none.
    const recorder = {
      record: async (...args: Parameters<EventRecorder["record"]>) => (await context.recorder()).record(...args),
    };
    const now = context.now();
    const queue: Dependent[] = target.kind === "subject" ? [target.subject] : [...target.subjects];
    const seen = new Set<string>();
    const summaries: string[] = [];
    const schedules: ScheduleDecision[] = [];
    const failed: string[] = [];
    let conflicted = false;
    let acted = false;
    const rosters = newRosterPolls();
    while (queue.length > 0 && seen.size < MOST_OBJECTS) {
      const subject = queue.shift() as Dependent;
      // A second visit is asked for explicitly (a user after its account revoked its key), once.
      const id = `${describeSubject(subject)}${subject.again ? " (again)" : ""}`;
      if (seen.has(id)) continue;
      seen.add(id);
      try {
        const result = await reconcile(kube, recorder, subject, now, rosters);
        summaries.push(result.summary);
        if (result.kind === "conflict") conflicted = true;
        if (result.kind !== "gone") acted = true;
        if (result.kind === "done") schedules.push(...result.schedules);
      } catch (error) {
        // One object's failure does not keep the others from their reconcile; the event is retried.
        const message = error instanceof Error ? error.message : String(error);
        context.log.warn({ object: id, err: message }, "reconcile failed");
        failed.push(`${id}: ${message}`);
      }
      queue.push(...(await dependentsOf(kube, subject)));
    }
    const outcome: Outcome =
      failed.length > 0
        ? retry(failed.join("; "))
        : conflicted
          ? conflict(summaries.join("; "))
          : acted
            ? done(summaries.join("; "))
            : skipped(summaries.join("; "));
    return withSchedules(outcome, schedules);
  },
  shutdown: () => closeSystemConnections(),
};

export const handle = signAccount.handle;
