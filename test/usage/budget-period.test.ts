import { describe, expect, test } from "bun:test";
import { wallClock } from "../../src/jobs/zoned-time.ts";
import { periodWindow } from "../../src/usage/budget-period.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("budget periods in the owner's zone", () => {
  test("a Berlin day starts at local midnight, not UTC's: 00:30 local is already the next day", () => {
    const w = periodWindow("daily", at("2026-05-03T22:30:00Z"), "Europe/Berlin");
    expect(w.label).toBe("2026-05-04");
    expect(iso(w.start)).toBe("2026-05-03T22:00:00.000Z");
    expect(iso(w.end)).toBe("2026-05-04T22:00:00.000Z");
  });

  test("a Los Angeles evening is still today there while UTC has moved on", () => {
    const w = periodWindow("daily", at("2026-07-02T05:00:00Z"), "America/Los_Angeles");
    expect(w.label).toBe("2026-07-01");
    expect(iso(w.start)).toBe("2026-07-01T07:00:00.000Z");
  });

  test("the spring-forward day is 23 hours long and the fall-back day 25", () => {
    const spring = periodWindow("daily", at("2026-03-08T20:00:00Z"), "America/Los_Angeles");
    expect(iso(spring.start)).toBe("2026-03-08T08:00:00.000Z");
    expect((spring.end - spring.start) / 3_600_000).toBe(23);
    const fall = periodWindow("daily", at("2026-11-01T20:00:00Z"), "America/Los_Angeles");
    expect((fall.end - fall.start) / 3_600_000).toBe(25);
  });

  test("a month turns over at local midnight on the 1st: New Year in Tokyo while UTC is still in December", () => {
    const w = periodWindow("monthly", at("2026-12-31T16:00:00Z"), "Asia/Tokyo");
    expect(w.label).toBe("2027-01");
    expect(iso(w.start)).toBe("2026-12-31T15:00:00.000Z");
    expect(iso(w.end)).toBe("2027-01-31T15:00:00.000Z");
  });

  test("a half-hour zone's month: India's March runs from 18:30 UTC on the last day of February", () => {
    const w = periodWindow("monthly", at("2026-03-15T12:00:00Z"), "Asia/Kolkata");
    expect(iso(w.start)).toBe("2026-02-28T18:30:00.000Z");
    expect(iso(w.end)).toBe("2026-03-31T18:30:00.000Z");
  });

  test("every start is the first instant of its local day, in zones whose DST changes at midnight too", () => {
    const zones = ["America/Santiago", "America/Havana", "Asia/Beirut", "Pacific/Auckland", "Europe/London"];
    for (const zone of zones) {
      for (let t = at("2026-01-01T00:00:00Z"); t < at("2027-01-01T00:00:00Z"); t += 86_400_000 * 3 + 3_600_000) {
        const w = periodWindow("daily", t, zone);
        expect(w.start).toBeLessThanOrEqual(t);
        expect(w.end).toBeGreaterThan(t);
        const first = wallClock(w.start, zone);
        const before = wallClock(w.start - 60_000, zone);
        expect(`${first.year}-${pad(first.month)}-${pad(first.day)}`).toBe(w.label);
        expect(before.day).not.toBe(first.day);
      }
    }
  });
});

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
