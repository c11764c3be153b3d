import { describe, expect, test } from "bun:test";
import { describeSchedule, nextRunAt, parseSchedule, type Schedule } from "../../src/jobs/schedule.ts";
import { formatLocalIso, wallClock } from "../../src/jobs/zoned-time.ts";

const at = (iso: string) => Date.parse(iso);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const NY = "America/New_York";
const BERLIN = "Europe/Berlin";

function parsed(expr: string, timeZone = "UTC"): Schedule {
  const result = parseSchedule(expr, timeZone);
  if (!result.ok) throw new Error(result.error);
  return result.schedule;
}

function refusal(expr: string, timeZone = BERLIN): string {
  const result = parseSchedule(expr, timeZone);
  if (result.ok) throw new Error(`"${expr}" was accepted`);
  return result.error;
}

/** The next `count` runs after `fromIso`, each found from the previous one, as instants. */
function runs(expr: string, timeZone: string, fromIso: string, count: number): number[] {
  const schedule = parsed(expr, timeZone);
  const out: number[] = [];
  let after = at(fromIso);
  for (let i = 0; i < count; i++) {
    const next = nextRunAt(schedule, after);
    if (next === null) break;
    out.push(next);
    after = next;
  }
  return out;
}

const utc = (instants: number[]) => instants.map((t) => new Date(t).toISOString().replace(".000Z", "Z"));
const local = (instants: number[], timeZone: string) => instants.map((t) => formatLocalIso(t, timeZone));

describe("interval schedules", () => {
  test.each([
    ["every 15 minutes", 15 * MINUTE, "every 15 minutes"],
    ["every 1 minute", MINUTE, "every minute"],
    ["every minute", MINUTE, "every minute"],
    ["every hour", HOUR, "every hour"],
    ["Every 2 Hours", 2 * HOUR, "every 2 hours"],
    ["every day", 24 * HOUR, "every day"],
    ["every 3 days", 72 * HOUR, "every 3 days"],
    ["every 90 minutes", 90 * MINUTE, "every 90 minutes"],
    ["  every   5   minutes ", 5 * MINUTE, "every 5 minutes"],
  ])("%p", (expr, everyMs, description) => {
    const schedule = parsed(expr);
    expect(schedule).toMatchObject({ kind: "interval", everyMs });
    expect(describeSchedule(schedule)).toBe(description);
  });

  test("the next run counts from afterMs, not from the wall clock", () => {
    const after = at("2026-12-01T10:07:13.500Z");
    expect(nextRunAt(parsed("every 15 minutes"), after)).toBe(after + 15 * MINUTE);
  });
});

describe("once schedules", () => {
  test.each([
    ["2026-12-24T08:00:00+01:00", "2026-12-24T07:00:00.000Z"],
    ["2026-12-24T07:00Z", "2026-12-24T07:00:00.000Z"],
    ["2026-12-24t07:00:00z", "2026-12-24T07:00:00.000Z"],
    ["2026-12-24T02:00:00-05:00", "2026-12-24T07:00:00.000Z"],
    ["2026-12-24T12:30:00+0530", "2026-12-24T07:00:00.000Z"],
    ["2026-12-24T08:00:00.250+01:00", "2026-12-24T07:00:00.250Z"],
  ])("%p", (expr, instant) => {
    expect(parsed(expr)).toMatchObject({ kind: "once", at: at(instant) });
  });

  test("runs once, strictly after afterMs", () => {
    const schedule = parsed("2026-12-24T07:00Z");
    expect(nextRunAt(schedule, at("2026-12-24T06:59:59Z"))).toBe(at("2026-12-24T07:00Z"));
    expect(nextRunAt(schedule, at("2026-12-24T07:00Z"))).toBeNull();
    expect(nextRunAt(schedule, at("2027-01-01T00:00Z"))).toBeNull();
    expect(describeSchedule(schedule)).toBe("once at 2026-12-24T07:00:00Z");
  });
});

describe("cron field forms", () => {
  test.each([
    ["* * * * *", "2026-03-01T10:07:30Z", ["2026-03-01T10:08:00Z", "2026-03-01T10:09:00Z"]],
    ["5 * * * *", "2026-03-01T10:07:00Z", ["2026-03-01T11:05:00Z", "2026-03-01T12:05:00Z"]],
    [
      "0,20,40 9 * * *",
      "2026-03-01T09:15:00Z",
      ["2026-03-01T09:20:00Z", "2026-03-01T09:40:00Z", "2026-03-02T09:00:00Z"],
    ],
    ["0 9-11 * * *", "2026-03-01T10:30:00Z", ["2026-03-01T11:00:00Z", "2026-03-02T09:00:00Z"]],
    ["*/20 * * * *", "2026-03-01T10:05:00Z", ["2026-03-01T10:20:00Z", "2026-03-01T10:40:00Z", "2026-03-01T11:00:00Z"]],
    [
      "10-50/20 * * * *",
      "2026-03-01T10:05:00Z",
      ["2026-03-01T10:10:00Z", "2026-03-01T10:30:00Z", "2026-03-01T10:50:00Z"],
    ],
    // n/s runs from n to the top of the field (cron-schedule alone would read "5/15" as just 5).
    ["5/15 * * * *", "2026-03-01T10:50:00Z", ["2026-03-01T11:05:00Z", "2026-03-01T11:20:00Z", "2026-03-01T11:35:00Z"]],
    ["0 0 * JAN,dec *", "2026-03-01T00:00:00Z", ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"]],
    [
      "0 12 * * MON-wed",
      "2026-03-01T00:00:00Z",
      ["2026-03-02T12:00:00Z", "2026-03-03T12:00:00Z", "2026-03-04T12:00:00Z"],
    ],
    [
      "0 12 * * FRI-SUN",
      "2026-03-04T00:00:00Z",
      ["2026-03-06T12:00:00Z", "2026-03-07T12:00:00Z", "2026-03-08T12:00:00Z"],
    ],
    ["0 12 * * 1/2", "2026-03-01T00:00:00Z", ["2026-03-02T12:00:00Z", "2026-03-04T12:00:00Z", "2026-03-06T12:00:00Z"]],
    ["@hourly", "2026-03-01T10:07:00Z", ["2026-03-01T11:00:00Z"]],
    ["@weekly", "2026-03-02T00:00:00Z", ["2026-03-08T00:00:00Z"]],
  ])("%p", (expr, from, expected) => {
    expect(utc(runs(expr, "UTC", from, expected.length))).toEqual(expected);
  });

  test("weekday 7 and 0 and SUN are all Sunday", () => {
    for (const expr of ["0 0 * * 7", "0 0 * * 0", "0 0 * * sun"]) {
      expect(utc(runs(expr, "UTC", "2026-03-02T00:00:00Z", 2))).toEqual([
        "2026-03-08T00:00:00Z",
        "2026-03-15T00:00:00Z",
      ]);
    }
  });

  test("months come back 0-based from cron-schedule and the matcher agrees", () => {
    const schedule = parsed("0 0 1 jan,12 *");
    expect(schedule.kind === "cron" && schedule.cron.months).toEqual([0, 11]);
    expect(utc(runs("0 0 1 jan,12 *", "UTC", "2026-03-01T00:00:00Z", 2))).toEqual([
      "2026-12-01T00:00:00Z",
      "2027-01-01T00:00:00Z",
    ]);
  });

  test("day-of-month AND weekday must both match when both are restricted", () => {
    // The first Monday of each month, not "every 1st-7th plus every Monday" as in classic cron.
    expect(utc(runs("0 9 1-7 * 1", "UTC", "2026-03-01T00:00:00Z", 3))).toEqual([
      "2026-03-02T09:00:00Z",
      "2026-04-06T09:00:00Z",
      "2026-05-04T09:00:00Z",
    ]);
    // Friday the 13th: more than a year apart here (2027-08 → 2028-10), still found.
    expect(utc(runs("0 0 13 * 5", "UTC", "2026-03-01T00:00:00Z", 4))).toEqual([
      "2026-03-13T00:00:00Z",
      "2026-11-13T00:00:00Z",
      "2027-08-13T00:00:00Z",
      "2028-10-13T00:00:00Z",
    ]);
  });

  test("month boundaries: a missing 31st is skipped, the year rolls over", () => {
    expect(utc(runs("0 0 31 * *", "UTC", "2026-03-31T00:00:00Z", 3))).toEqual([
      "2026-05-31T00:00:00Z",
      "2026-07-31T00:00:00Z",
      "2026-08-31T00:00:00Z",
    ]);
    expect(utc(runs("0 0 1 * *", "UTC", "2026-12-31T23:59:59Z", 2))).toEqual([
      "2027-01-01T00:00:00Z",
      "2027-02-01T00:00:00Z",
    ]);
  });

  test("leap day: 0 12 29 2 * finds 2028-02-29, then 2032", () => {
    expect(utc(runs("0 12 29 2 *", "UTC", "2026-03-01T00:00:00Z", 2))).toEqual([
      "2028-02-29T12:00:00Z",
      "2032-02-29T12:00:00Z",
    ]);
  });

  test("no future run is null", () => {
    for (const expr of ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 31 feb *"]) {
      expect(nextRunAt(parsed(expr), at("2026-03-01T00:00:00Z"))).toBeNull();
    }
  });

  test("strictly after afterMs, on whole minutes, in the job's zone", () => {
    const daily = parsed("0 8 * * *", BERLIN);
    expect(nextRunAt(daily, at("2026-12-01T06:59:59.999Z"))).toBe(at("2026-12-01T07:00:00Z"));
    expect(nextRunAt(daily, at("2026-12-01T07:00:00Z"))).toBe(at("2026-12-02T07:00:00Z"));
    expect(nextRunAt(parsed("* * * * *"), at("2026-12-01T07:00:12.345Z"))).toBe(at("2026-12-01T07:01:00Z"));
    expect(nextRunAt(parsed("0 8 * * *", NY), at("2026-12-01T07:00:00Z"))).toBe(at("2026-12-01T13:00:00Z"));
  });

  test("the zone is stored canonical and shown in the description", () => {
    const schedule = parsed("0  8 * * *", "europe/berlin");
    expect(schedule).toMatchObject({ kind: "cron", expr: "0 8 * * *", timeZone: BERLIN });
    expect(describeSchedule(schedule)).toBe("cron 0 8 * * * (Europe/Berlin)");
  });
});

describe("cron across daylight-saving transitions", () => {
  test("New York spring-forward: 02:30 fires once at 03:00 EDT, then 02:30 again the next day", () => {
    expect(local(runs("30 2 * * *", NY, "2026-03-07T12:00:00Z", 3), NY)).toEqual([
      "2026-03-08T03:00:00-04:00",
      "2026-03-09T02:30:00-04:00",
      "2026-03-10T02:30:00-04:00",
    ]);
    // Asked a moment before the jump, the skipped time is still due.
    expect(nextRunAt(parsed("30 2 * * *", NY), at("2026-03-08T06:59:30Z"))).toBe(at("2026-03-08T07:00:00Z"));
  });

  test("several times inside the gap collapse into one run", () => {
    expect(local(runs("*/15 2 * * *", NY, "2026-03-08T05:00:00Z", 2), NY)).toEqual([
      "2026-03-08T03:00:00-04:00",
      "2026-03-09T02:00:00-04:00",
    ]);
    expect(local(runs("0 2,3 * * *", NY, "2026-03-08T05:00:00Z", 3), NY)).toEqual([
      "2026-03-08T03:00:00-04:00",
      "2026-03-09T02:00:00-04:00",
      "2026-03-09T03:00:00-04:00",
    ]);
  });

  test("Berlin spring-forward: 02:30 fires at 03:00 CEST", () => {
    expect(local(runs("30 2 * * *", BERLIN, "2026-03-28T12:00:00Z", 2), BERLIN)).toEqual([
      "2026-03-29T03:00:00+02:00",
      "2026-03-30T02:30:00+02:00",
    ]);
  });

  test("New York fall-back: 01:30 fires once (EDT), not again in EST, and the next day as usual", () => {
    expect(local(runs("30 1 * * *", NY, "2026-10-31T12:00:00Z", 3), NY)).toEqual([
      "2026-11-01T01:30:00-04:00",
      "2026-11-02T01:30:00-05:00",
      "2026-11-03T01:30:00-05:00",
    ]);
    // Asked during the repeat (01:15 EST), the repeated 01:30 is not due again.
    expect(nextRunAt(parsed("30 1 * * *", NY), at("2026-11-01T06:15:00Z"))).toBe(at("2026-11-02T06:30:00Z"));
  });

  test("Berlin fall-back: 02:30 fires once (CEST) and the next day at 02:30 CET", () => {
    expect(local(runs("30 2 * * *", BERLIN, "2026-10-24T12:00:00Z", 2), BERLIN)).toEqual([
      "2026-10-25T02:30:00+02:00",
      "2026-10-26T02:30:00+01:00",
    ]);
    expect(nextRunAt(parsed("30 2 * * *", BERLIN), at("2026-10-25T01:10:00Z"))).toBe(at("2026-10-26T01:30:00Z"));
  });

  test("0 * * * * in New York: merges the skipped hour, runs the repeated hour once", () => {
    expect(local(runs("0 * * * *", NY, "2026-03-08T04:30:00Z", 4), NY)).toEqual([
      "2026-03-08T00:00:00-05:00",
      "2026-03-08T01:00:00-05:00",
      "2026-03-08T03:00:00-04:00",
      "2026-03-08T04:00:00-04:00",
    ]);
    expect(local(runs("0 * * * *", NY, "2026-11-01T03:30:00Z", 4), NY)).toEqual([
      "2026-11-01T00:00:00-04:00",
      "2026-11-01T01:00:00-04:00",
      "2026-11-01T02:00:00-05:00",
      "2026-11-01T03:00:00-05:00",
    ]);
  });

  test("*/30 * * * * in Berlin: half-hourly through the gap, repeated 02:00 and 02:30 run once", () => {
    expect(local(runs("*/30 * * * *", BERLIN, "2026-03-29T00:10:00Z", 4), BERLIN)).toEqual([
      "2026-03-29T01:30:00+01:00",
      "2026-03-29T03:00:00+02:00",
      "2026-03-29T03:30:00+02:00",
      "2026-03-29T04:00:00+02:00",
    ]);
    expect(local(runs("*/30 * * * *", BERLIN, "2026-10-24T23:10:00Z", 5), BERLIN)).toEqual([
      "2026-10-25T01:30:00+02:00",
      "2026-10-25T02:00:00+02:00",
      "2026-10-25T02:30:00+02:00",
      "2026-10-25T03:00:00+01:00",
      "2026-10-25T03:30:00+01:00",
    ]);
  });

  // Over a whole transition day: increasing, no duplicate instant or wall time, every run at a matching wall
  // time (the gap's end, 03:00, is one too), and no pause beyond the period plus the repeated hour that is not re-run.
  describe.each([
    [NY, "2026-03-08", "spring"],
    [NY, "2026-11-01", "fall"],
    [BERLIN, "2026-03-29", "spring"],
    [BERLIN, "2026-10-25", "fall"],
  ] as const)("%s %s", (timeZone, day, season) => {
    test.each([
      ["0 * * * *", 60],
      ["*/30 * * * *", 30],
    ] as const)("%s", (expr, periodMinutes) => {
      const from = at(`${day}T00:00:00Z`) - 24 * HOUR;
      const instants = runs(expr, timeZone, new Date(from).toISOString(), (72 * 60) / periodMinutes);
      const walls = local(instants, timeZone).map((iso) => iso.slice(0, 16));
      expect(new Set(instants).size).toBe(instants.length);
      expect(new Set(walls).size).toBe(walls.length);
      const gaps = instants.slice(1).map((t, i) => (t - instants[i]!) / MINUTE);
      expect(gaps.every((g) => g > 0)).toBe(true);
      const longest = Math.max(...gaps);
      expect(longest).toBe(season === "spring" ? periodMinutes : periodMinutes + 60);
      for (const t of instants) expect(wallClock(t, timeZone).minute % periodMinutes).toBe(0);
      // The local day has 23 or 25 hours: the skipped hour's times merge into 03:00, the repeated hour adds none.
      const perHour = 60 / periodMinutes;
      expect(walls.filter((w) => w.startsWith(day)).length).toBe(season === "spring" ? 23 * perHour : 24 * perHour);
    });
  });
});

describe("cron refusals name the field", () => {
  test.each([
    ["61 * * * *", 'cron minute field "61" is out of range 0-59'],
    ["5,61 * * * *", 'cron minute field "5,61": 61 is out of range 0-59'],
    ["0 24 * * *", 'cron hour field "24" is out of range 0-23'],
    ["0 0 0 * *", 'cron day-of-month field "0" is out of range 1-31'],
    ["0 0 32 * *", 'cron day-of-month field "32" is out of range 1-31'],
    ["0 0 * 13 *", 'cron month field "13" is out of range 1-12 or JAN-DEC'],
    ["0 0 * * 8", 'cron weekday field "8" is out of range 0-7 or SUN-SAT, 0 and 7 both Sunday'],
    ["0 0 1-40 * *", 'cron day-of-month field "1-40": 40 is out of range 1-31'],
    [
      "0 0 * * MOX",
      'cron weekday field "MOX" is malformed; use * or a value (0-7 or SUN-SAT, 0 and 7 both Sunday), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    [
      "1,,2 * * * *",
      'cron minute field "1,,2" is malformed; use * or a value (0-59), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    [
      "0 8am * * *",
      'cron hour field "8am" is malformed; use * or a value (0-23), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    [
      "0 0 * JAN-XYZ *",
      'cron month field "JAN-XYZ" is malformed; use * or a value (1-12 or JAN-DEC), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    ["0 0 ? * *", 'cron day-of-month field "?" is malformed: "?" is not supported, write "*"'],
    [
      "0 0 L * *",
      'cron day-of-month field "L" is malformed: "L", "W" and "#" are not supported; use * or a value (1-31), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    [
      "0 0 * * 1#2",
      'cron weekday field "1#2" is malformed: "L", "W" and "#" are not supported; use * or a value (0-7 or SUN-SAT, 0 and 7 both Sunday), a list (1,3), a range (1-5) or a step (*/15, 1-5/2, 10/15)',
    ],
    ["*/0 * * * *", 'cron minute field "*/0": the step must be at least 1'],
    [
      "*/90 * * * *",
      'cron minute field "*/90": a step of 90 does not fit in an hour; for a run every 90 minutes use "every 90 minutes"',
    ],
    [
      "0 */36 * * *",
      'cron hour field "*/36": a step of 36 does not fit in a day; for a run every 36 hours use "every 36 hours"',
    ],
    ["0 0 */40 * *", 'cron day-of-month field "*/40": the step 40 is larger than the field\'s range 1-31'],
    ["0 22-2 * * *", 'cron hour field "22-2": the range 22-2 runs backwards; use a list instead, e.g. "22-23,0-2"'],
    [
      "0 0 * * FRI-MON",
      'cron weekday field "FRI-MON": the range 5-1 runs backwards; use a list instead, e.g. "5-6,0-1"',
    ],
    [
      "0 0 8 * * *",
      'it has 6 fields, but seconds are not supported (a job runs on whole minutes); use the 5 fields "minute hour day-of-month month weekday", e.g. "0 8 * * *"',
    ],
    [
      "0 8 * *",
      'a cron expression has 5 fields "minute hour day-of-month month weekday" but this has 4; e.g. "0 8 * * 1-5" is 08:00 on weekdays',
    ],
    [
      "0 0 8 * * * 2026",
      'a cron expression has 5 fields "minute hour day-of-month month weekday" but this has 7; e.g. "0 8 * * 1-5" is 08:00 on weekdays',
    ],
    [
      "@reboot",
      'unknown cron nickname; use @hourly, @daily, @weekly, @monthly or @yearly, or the 5 fields "minute hour day-of-month month weekday"',
    ],
    [
      "0 8 * * * Europe/Berlin",
      'the time zone is not part of the schedule; write "0 8 * * *" and set the job\'s timezone to Europe/Berlin',
    ],
  ])("%p", (expr, reason) => {
    expect(refusal(expr)).toBe(`Invalid schedule "${expr}": ${reason}`);
  });
});

describe("other refusals", () => {
  test("unknown time zone, whatever the schedule", () => {
    for (const expr of ["0 8 * * *", "every 5 minutes", "2026-12-24T07:00Z"]) {
      expect(refusal(expr, "Mars/Olympus")).toBe(
        'unknown time zone "Mars/Olympus"; use an IANA name such as Europe/Berlin',
      );
    }
  });

  test.each([
    ["every 0 minutes", 'the interval must be at least 1 minute, e.g. "every 1 minute"'],
    ["every 400 days", "intervals longer than 366 days are not supported; use a cron expression or a one-time instant"],
    [
      "2026-12-24T08:00:00",
      'it has no UTC offset; add one, e.g. "2026-12-24T08:00:00+01:00" (Europe/Berlin at that time)',
    ],
    [
      "2026-07-01T08:00",
      'it has no UTC offset; add one, e.g. "2026-07-01T08:00:00+02:00" (Europe/Berlin at that time)',
    ],
    [
      "2026-12-24",
      'it has no time of day; add one with a UTC offset, e.g. "2026-12-24T09:00:00+01:00" (Europe/Berlin)',
    ],
    ["2026-02-30T08:00Z", 'it is not a valid date and time; write it like "2026-12-24T08:00:00+01:00"'],
    ["2026-12-24T25:00Z", 'it is not a valid date and time; write it like "2026-12-24T08:00:00+01:00"'],
    ["2026-12-24T08:00+19:00", "its UTC offset is out of range (-18:00 to +18:00)"],
    ["2026-12-24 at 8", 'it is not an ISO 8601 instant; write it like "2026-12-24T08:00:00+01:00"'],
  ])("%p", (expr, reason) => {
    expect(refusal(expr)).toBe(`Invalid schedule "${expr}": ${reason}`);
  });

  test("the offset suggested for a local time is the zone's real one", () => {
    expect(refusal("2026-12-24T08:00:00", NY)).toContain('"2026-12-24T08:00:00-05:00"');
  });
});

describe("free-form English is refused with the equivalent", () => {
  test("the exact sentence", () => {
    expect(refusal("daily at 8am")).toBe(
      'Invalid schedule "daily at 8am": free-form English is not a schedule; use the cron expression "0 8 * * *" (minute hour day-of-month month weekday) in the job\'s timezone',
    );
  });

  test.each([
    ["daily at 8am", "0 8 * * *"],
    ["every day at 8", "0 8 * * *"],
    ["Every day at 6:45 PM.", "45 18 * * *"],
    ["at 8pm", "0 20 * * *"],
    ["every monday at 9am", "0 9 * * 1"],
    ["mondays at 9:30", "30 9 * * 1"],
    ["on tuesdays and thursdays at 17:00", "0 17 * * 2,4"],
    ["weekdays at 7am", "0 7 * * 1-5"],
    ["every weekday at noon", "0 12 * * 1-5"],
    ["weekends at 10", "0 10 * * 0,6"],
    ["every morning", "0 8 * * *"],
    ["every morning at 7", "0 7 * * *"],
    ["every evening", "0 18 * * *"],
    ["nightly at midnight", "0 0 * * *"],
    ["hourly", "0 * * * *"],
    ["monthly on the 15th at 9am", "0 9 15 * *"],
    ["first monday of the month at 9", "0 9 1-7 * 1"],
    ["every month", "0 9 1 * *"],
  ])("%p → %p", (text, cron) => {
    expect(refusal(text)).toContain(`free-form English is not a schedule; use the cron expression "${cron}"`);
  });

  test("hourly also offers the interval form", () => {
    expect(refusal("hourly")).toEndWith('or "every hour" to count from the last run');
  });

  test("a day without a time says which time it assumed", () => {
    expect(refusal("every monday")).toEndWith(
      'use the cron expression "0 9 * * 1" (minute hour day-of-month month weekday) in the job\'s timezone; 09:00 assumed, the first two fields are minute and hour',
    );
  });

  test.each([
    ["every 15 mins", 'use "every 15 minutes"'],
    ["every 2h", 'use "every 2 hours"'],
    ["every other day", 'use "every 2 days"'],
    ["every half hour", 'use "every 30 minutes"'],
    ["every 2 weeks", 'use "every 14 days", or for a fixed weekday and time a cron expression such as "0 9 * * 1"'],
    ["every 30 seconds", 'jobs run on whole minutes, the shortest interval is "every 1 minute"'],
    [
      "tomorrow at 9",
      'for a single run give the instant in ISO 8601 with its UTC offset, e.g. "2026-12-24T08:00:00+01:00"',
    ],
    ["in 2 hours", "for a single run give the instant in ISO 8601 with its UTC offset"],
  ])("%p", (text, hint) => {
    expect(refusal(text)).toContain(`free-form English is not a schedule; ${hint}`);
  });

  test("anything else gets the three forms with an example each", () => {
    const forms =
      'use "every N minutes|hours|days" (e.g. "every 30 minutes"), a one-time ISO 8601 instant with a UTC offset ' +
      '(e.g. "2026-12-24T08:00:00+01:00"), or a 5-field cron expression "minute hour day-of-month month weekday" ' +
      'in the job\'s timezone (e.g. "0 8 * * 1-5")';
    expect(refusal("whenever it rains")).toBe(
      `Invalid schedule "whenever it rains": free-form text is not a schedule; ${forms}`,
    );
    expect(refusal("   ")).toBe(`Invalid schedule "   ": it is empty; ${forms}`);
  });
});
