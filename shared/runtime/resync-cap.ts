// The resync cap: a resync tick costs a sweep (a list of every kind the function owns, and of the
// inputs their records name), and without Eventing's OIDC any pod can POST one, so a flood of
// forged ticks would be a flood of sweeps. Each firing of a function's resync PingSource is
// therefore swept once, however many ticks claim it: the PingSource itself keeps the memory (an
// annotation with the firing last swept), which a function scaled to zero, or several of its
// instances at once, all read. Of two deliveries claiming the same firing, the write guarded by
// the resourceVersion they read lets exactly one through (the project's rule for a decision that
// must happen once); the other answers 200 and sweeps nothing. This module is the decision, pure;
// resync-claim.ts reads and writes.
import { LAST_FIRING_LOOK_BACK_MS, parseSchedule } from "./cron.ts";

/** The annotation on a resync PingSource holding the firing last swept (RFC 3339). */
export const LAST_RESYNC_ANNOTATION = "nats-operator.io/last-resync";

/**
 * How far ahead of this pod's clock a firing may be counted: the PingSource adapter's clock may run
 * ahead of the function's, and its tick must still find its own firing due. A tenth of the interval
 * at most, so a tick delivered late (up to nine tenths of the interval) still finds its own firing
 * rather than taking the next one's.
 */
const CLOCK_SKEW_MS = 2_000;

/** The PingSource a tick names, as read (undefined: it does not exist, or the tick names none). */
export interface ResyncSource {
  namespace: string;
  name: string;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  schedule?: string;
  timezone?: string;
}

export interface ResyncCapInput {
  /** The function the tick is for. */
  fn: string;
  /** `<namespace>/<name>` of the PingSource the tick says it comes from (its source attribute). */
  pingSource: string | undefined;
  /** That PingSource as read, or undefined. */
  found: ResyncSource | undefined;
  /**
   * The operator's namespace, where a pod's resync PingSources live; undefined outside a pod
   * (`npm start`, the tests), where no one else can deliver to the functions.
   */
  home: string | undefined;
  now: Date;
}

/** The claim a sweep makes before it starts: the firing it answers, written over `resourceVersion`. */
export interface ResyncClaim {
  namespace: string;
  name: string;
  resourceVersion: string;
  firing: string;
  /** The annotation's value before, put back if the sweep fails so the Broker's retry may sweep. */
  previous: string | undefined;
}

export type ResyncCap =
  /** Sweep; with a claim, only once the claim's guarded write held. */
  { kind: "sweep"; claim?: ResyncClaim } | { kind: "skip"; reason: string };

/** Whether a resync tick sweeps, and what it claims first. */
export function decideResyncCap(input: ResyncCapInput): ResyncCap {
  const { fn, found, home } = input;
  const expected = `${fn}-resync`;
  if (home !== undefined) {
    const named = input.pingSource ?? "no PingSource";
    if (input.pingSource !== `${home}/${expected}`)
      return { kind: "skip", reason: `a resync of ${fn} is taken from ${home}/${expected} only, not ${named}` };
    if (found === undefined) return { kind: "skip", reason: `no PingSource ${home}/${expected}: nothing to sweep for` };
  } else if (found === undefined) {
    // Outside a pod the local runner fires knative/resync.yaml's ticks without the objects, and
    // tests tick by hand: nothing remembers their firings, and no one else reaches the functions.
    return { kind: "sweep" };
  }
  const schedule = parseSchedule(found.schedule ?? "* * * * *");
  if (!schedule.ok) return { kind: "skip", reason: `PingSource ${found.namespace}/${found.name}: ${schedule.message}` };
  let firing: Date | undefined;
  try {
    const ahead = schedule.lastFiring(new Date(input.now.getTime() + CLOCK_SKEW_MS), found.timezone);
    const before = ahead ? schedule.lastFiring(new Date(ahead.getTime() - 1), found.timezone) : undefined;
    const interval = ahead && before ? ahead.getTime() - before.getTime() : Infinity;
    firing = ahead && ahead.getTime() - input.now.getTime() > interval / 10 ? before : ahead;
  } catch {
    return { kind: "skip", reason: `PingSource ${found.namespace}/${found.name}: unknown timezone ${found.timezone}` };
  }
  // A schedule firing less often than the look-back is swept at most once per look-back period
  // (periods counted from the epoch, so every tick of one period finds the same one).
  firing ??= new Date(input.now.getTime() - (input.now.getTime() % LAST_FIRING_LOOK_BACK_MS));
  const previous = found.annotations?.[LAST_RESYNC_ANNOTATION];
  const swept = previous === undefined ? NaN : Date.parse(previous);
  // A recorded firing ahead of the clock is not believed: it would hold every sweep off until then.
  const believed = Number.isFinite(swept) && swept <= input.now.getTime() + CLOCK_SKEW_MS;
  if (believed && swept >= firing.getTime())
    return {
      kind: "skip",
      reason: `the firing at ${firing.toISOString()} of ${found.namespace}/${found.name} is swept already`,
    };
  return {
    kind: "sweep",
    claim: {
      namespace: found.namespace,
      name: found.name,
      resourceVersion: found.resourceVersion ?? "",
      firing: firing.toISOString(),
      previous,
    },
  };
}
