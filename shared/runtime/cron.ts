/**
 * The cron schedules PingSource accepts: five fields (minute hour
 * day-of-month month day-of-week), optionally a leading seconds field, and
 * the descriptors @yearly, @monthly, @weekly, @daily and @hourly. Evaluated
 * in UTC, or in the IANA zone given (a PingSource's `timezone`). The local
 * runner fires PingSources by it; the resync cap (resync-cap.ts) finds the
 * firing a tick answers by it.
 */
export type Schedule =
  | {
      ok: true;
      matches: (at: Date) => boolean;
      hasSeconds: boolean;
      /**
       * The latest whole second at or before `at` the schedule fires at, read in `timeZone`
       * (UTC when absent), looking back at most `lookBackMs`; undefined when it fires at none.
       * Throws a RangeError for a zone that does not exist.
       */
      lastFiring: (at: Date, timeZone?: string, lookBackMs?: number) => Date | undefined;
    }
  | { ok: false; message: string };

/** How far `lastFiring` looks back unless told: a schedule firing monthly is found. */
export const LAST_FIRING_LOOK_BACK_MS = 32 * 24 * 3600_000;

const descriptors: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const ranges: [number, number][] = [
  [0, 59], // second
  [0, 59], // minute
  [0, 23], // hour
  [1, 31], // day of month
  [1, 12], // month
  [0, 6], // day of week
];

/** The calendar fields of a moment that a schedule is matched against (seconds aside). */
interface MinuteFields {
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

const utcFields = (at: Date): MinuteFields => ({
  minute: at.getUTCMinutes(),
  hour: at.getUTCHours(),
  day: at.getUTCDate(),
  month: at.getUTCMonth() + 1,
  weekday: at.getUTCDay(),
});

const weekdays: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** The fields as a wall clock in `timeZone` reads them (UTC for UTC, or no zone). */
function fieldsIn(timeZone: string | undefined): (at: Date) => MinuteFields {
  if (timeZone === undefined || timeZone === "" || timeZone === "UTC" || timeZone === "Etc/UTC") return utcFields;
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    weekday: "short",
  });
  return (at) => {
    const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
    return {
      minute: Number(parts["minute"]),
      hour: Number(parts["hour"]),
      day: Number(parts["day"]),
      month: Number(parts["month"]),
      weekday: weekdays[parts["weekday"] ?? ""] ?? -1,
    };
  };
}

export function parseSchedule(text: string): Schedule {
  const expanded = descriptors[text.trim()] ?? text.trim();
  const fields = expanded.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6)
    return { ok: false, message: `schedule "${text}" needs 5 or 6 fields` };
  const hasSeconds = fields.length === 6;
  const all = hasSeconds ? fields : ["0", ...fields];
  const sets: Set<number>[] = [];
  for (const [i, field] of all.entries()) {
    const range = ranges[i] as [number, number];
    const set = parseField(field, range[0], range[1] + (i === 5 ? 1 : 0));
    if (!set) return { ok: false, message: `schedule "${text}": cannot read field "${field}"` };
    if (i === 5 && set.has(7)) set.add(0); // 7 is Sunday too
    sets.push(set);
  }
  const [seconds, minutes, hours, days, months, weekdaySet] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  const minuteMatches = (f: MinuteFields) =>
    minutes.has(f.minute) && hours.has(f.hour) && days.has(f.day) && months.has(f.month) && weekdaySet.has(f.weekday);
  const secondsDescending = [...seconds].sort((a, b) => b - a);
  return {
    ok: true,
    hasSeconds,
    matches: (at) => seconds.has(at.getUTCSeconds()) && minuteMatches(utcFields(at)),
    lastFiring(at, timeZone, lookBackMs = LAST_FIRING_LOOK_BACK_MS) {
      const fieldsAt = fieldsIn(timeZone);
      const earliest = at.getTime() - lookBackMs;
      // Minute by minute back from the minute of `at` (no zone in use is offset by part of a
      // minute, so a UTC minute is a wall-clock minute), then the latest second of the first
      // matching minute that is not after `at`.
      const minuteOf = at.getTime() - (at.getTime() % 60_000);
      for (let minute = minuteOf; minute >= earliest - 60_000; minute -= 60_000) {
        if (!minuteMatches(fieldsAt(new Date(minute)))) continue;
        const latest = minute === minuteOf ? at.getUTCSeconds() : 59;
        const second = secondsDescending.find((s) => s <= latest);
        if (second === undefined) continue;
        const firing = minute + second * 1000;
        return firing >= earliest ? new Date(firing) : undefined;
      }
      return undefined;
    },
  };
}

function parseField(field: string, min: number, max: number): Set<number> | undefined {
  const values = new Set<number>();
  for (const part of field.split(",")) {
    const match = /^(\*|\?|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!match) return undefined;
    const wildcard = match[1] === "*" || match[1] === "?";
    const from = wildcard ? min : Number(match[2]);
    const to = wildcard ? max : match[3] !== undefined ? Number(match[3]) : match[4] !== undefined ? max : from;
    const step = match[4] !== undefined ? Number(match[4]) : 1;
    if (from < min || to > max || from > to || step < 1) return undefined;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}
