import { describe, expect, test } from "bun:test";
import {
  canonicalTimeZone,
  formatLocalIso,
  instantOf,
  isValidTimeZone,
  naiveOf,
  todayIn,
  wallClock,
} from "../../src/jobs/zoned-time.ts";

const at = (iso: string) => Date.parse(iso);
const NY = "America/New_York";
const BERLIN = "Europe/Berlin";

describe("wallClock", () => {
  test("reads the local fields, month 1-12 and weekday 0 = Sunday", () => {
    expect(wallClock(at("2026-12-01T12:34:56Z"), BERLIN)).toEqual({
      year: 2026,
      month: 12,
      day: 1,
      hour: 13,
      minute: 34,
      weekday: 2,
    });
    expect(wallClock(at("2026-07-05T03:00:00Z"), NY)).toEqual({
      year: 2026,
      month: 7,
      day: 4,
      hour: 23,
      minute: 0,
      weekday: 6,
    });
    expect(wallClock(at("2026-03-01T00:00:00Z"), "UTC").weekday).toBe(0);
  });

  test("midnight reads hour 0, not 24", () => {
    expect(wallClock(at("2026-06-30T22:00:00Z"), BERLIN)).toMatchObject({ month: 7, day: 1, hour: 0, minute: 0 });
  });

  test("follows the offset across both transitions", () => {
    expect(wallClock(at("2026-03-29T00:59:00Z"), BERLIN)).toMatchObject({ hour: 1, minute: 59 });
    expect(wallClock(at("2026-03-29T01:00:00Z"), BERLIN)).toMatchObject({ hour: 3, minute: 0 });
    expect(wallClock(at("2026-11-01T05:59:00Z"), NY)).toMatchObject({ hour: 1, minute: 59 });
    expect(wallClock(at("2026-11-01T06:00:00Z"), NY)).toMatchObject({ hour: 1, minute: 0 });
  });

  test("throws for an unknown zone", () => {
    expect(() => wallClock(0, "Mars/Olympus")).toThrow(RangeError);
  });
});

describe("time zone names", () => {
  test("isValidTimeZone accepts IANA names and refuses others", () => {
    for (const tz of [BERLIN, NY, "UTC", "Asia/Kolkata", "Australia/Lord_Howe"]) expect(isValidTimeZone(tz)).toBe(true);
    for (const tz of ["Mars/Olympus", "", " ", "Europe/Berlinn", "CET+1"]) expect(isValidTimeZone(tz)).toBe(false);
  });

  test("canonicalTimeZone fixes the spelling case", () => {
    expect(canonicalTimeZone("europe/berlin")).toBe(BERLIN);
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
  });
});

describe("instantOf", () => {
  test("an ordinary wall time", () => {
    expect(instantOf({ year: 2026, month: 12, day: 24, hour: 8, minute: 0 }, BERLIN)).toBe(at("2026-12-24T07:00:00Z"));
    expect(instantOf({ year: 2026, month: 7, day: 1, hour: 8, minute: 0 }, BERLIN)).toBe(at("2026-07-01T06:00:00Z"));
    expect(instantOf({ year: 2026, month: 1, day: 15, hour: 9, minute: 30 }, NY)).toBe(at("2026-01-15T14:30:00Z"));
  });

  test("gap: a skipped time gives the first valid instant after the gap", () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z).
    for (const minute of [0, 30, 59]) {
      expect(instantOf({ year: 2026, month: 3, day: 8, hour: 2, minute }, NY)).toBe(at("2026-03-08T07:00:00Z"));
    }
    expect(formatLocalIso(at("2026-03-08T07:00:00Z"), NY)).toBe("2026-03-08T03:00:00-04:00");
    expect(instantOf({ year: 2026, month: 3, day: 8, hour: 1, minute: 59 }, NY)).toBe(at("2026-03-08T06:59:00Z"));
    expect(instantOf({ year: 2026, month: 3, day: 8, hour: 3, minute: 0 }, NY)).toBe(at("2026-03-08T07:00:00Z"));
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z).
    expect(instantOf({ year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, BERLIN)).toBe(at("2026-03-29T01:00:00Z"));
  });

  test("gap of half an hour (Lord Howe Island, 2026-10-04 02:00 → 02:30)", () => {
    const end = instantOf({ year: 2026, month: 10, day: 4, hour: 2, minute: 15 }, "Australia/Lord_Howe");
    expect(formatLocalIso(end, "Australia/Lord_Howe")).toBe("2026-10-04T02:30:00+11:00");
  });

  test("overlap: a repeated time gives the earlier instant", () => {
    // New York, 2026-11-01: 01:00-01:59 happens in EDT (05:00Z…) and again in EST (06:00Z…).
    expect(instantOf({ year: 2026, month: 11, day: 1, hour: 1, minute: 0 }, NY)).toBe(at("2026-11-01T05:00:00Z"));
    expect(instantOf({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, NY)).toBe(at("2026-11-01T05:30:00Z"));
    expect(instantOf({ year: 2026, month: 11, day: 1, hour: 2, minute: 0 }, NY)).toBe(at("2026-11-01T07:00:00Z"));
    // Berlin, 2026-10-25: 02:00-02:59 in CEST (00:00Z…) and again in CET (01:00Z…).
    expect(instantOf({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, BERLIN)).toBe(at("2026-10-25T00:30:00Z"));
    expect(instantOf({ year: 2026, month: 10, day: 25, hour: 3, minute: 0 }, BERLIN)).toBe(at("2026-10-25T02:00:00Z"));
  });

  test("round-trips every quarter hour through both transition days, except second readings", () => {
    for (const [tz, day] of [
      [NY, "2026-03-08"],
      [NY, "2026-11-01"],
      [BERLIN, "2026-03-29"],
      [BERLIN, "2026-10-25"],
    ] as const) {
      for (let t = at(`${day}T00:00:00Z`) - 86_400_000; t < at(`${day}T00:00:00Z`) + 2 * 86_400_000; t += 900_000) {
        const back = instantOf(wallClock(t, tz), tz);
        // A second reading maps back to the first one, an hour earlier; nothing else moves.
        expect(back === t || (back === t - 3_600_000 && formatLocalIso(back, tz) !== formatLocalIso(t, tz))).toBe(true);
      }
    }
  });

  test("fields roll over like Date.UTC", () => {
    expect(instantOf({ year: 2026, month: 13, day: 1, hour: 0, minute: 0 }, "UTC")).toBe(at("2027-01-01T00:00:00Z"));
  });
});

describe("naiveOf and formatLocalIso", () => {
  test("naiveOf reads the wall clock as UTC ms, floored to the minute", () => {
    expect(naiveOf(at("2026-12-24T07:00:42.5Z"), BERLIN)).toBe(at("2026-12-24T08:00:00Z"));
  });

  test("formatLocalIso prints the local time with its offset", () => {
    expect(formatLocalIso(at("2026-12-24T07:00:00Z"), BERLIN)).toBe("2026-12-24T08:00:00+01:00");
    expect(formatLocalIso(at("2026-11-01T06:30:00Z"), NY)).toBe("2026-11-01T01:30:00-05:00");
    expect(formatLocalIso(at("2026-06-01T00:00:00Z"), "Asia/Kolkata")).toBe("2026-06-01T05:30:00+05:30");
  });
});

describe("todayIn", () => {
  test("names the date in the job's zone", () => {
    expect(todayIn(at("2026-12-01T12:00:00Z"), BERLIN)).toBe("Tuesday, 1 December 2026 (Europe/Berlin)");
  });

  test("the date is the zone's, not UTC's", () => {
    expect(todayIn(at("2026-12-01T23:30:00Z"), BERLIN)).toBe("Wednesday, 2 December 2026 (Europe/Berlin)");
    expect(todayIn(at("2026-12-01T23:30:00Z"), NY)).toBe("Tuesday, 1 December 2026 (America/New_York)");
    expect(todayIn(at("2027-01-01T04:00:00Z"), NY)).toBe("Thursday, 31 December 2026 (America/New_York)");
  });
});
