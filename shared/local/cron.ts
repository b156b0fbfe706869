/**
 * The cron schedules PingSource accepts: five fields (minute hour
 * day-of-month month day-of-week), optionally a leading seconds field, and
 * the descriptors @yearly, @monthly, @weekly, @daily and @hourly. Evaluated
 * in UTC.
 */
export type Schedule =
  { ok: true; matches: (at: Date) => boolean; hasSeconds: boolean } | { ok: false; message: string };

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
  const [seconds, minutes, hours, days, months, weekdays] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  return {
    ok: true,
    hasSeconds,
    matches: (at) =>
      seconds.has(at.getUTCSeconds()) &&
      minutes.has(at.getUTCMinutes()) &&
      hours.has(at.getUTCHours()) &&
      days.has(at.getUTCDate()) &&
      months.has(at.getUTCMonth() + 1) &&
      weekdays.has(at.getUTCDay()),
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
