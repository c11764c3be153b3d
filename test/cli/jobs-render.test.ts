import { describe, expect, test } from "bun:test";
import { at, duration, oneLine, renderRuns, scheduleText } from "../../src/cli/_jobs-render.ts";

const run = (completed: string | null, started: string | null = "2026-03-01T07:00:00.000Z") => ({
  claimed_at: "2026-03-01T06:59:59.000Z",
  started_at: started,
  completed_at: completed,
});

describe("fermix jobs text", () => {
  test("schedules are described; one that no longer parses is shown as stored", () => {
    expect(scheduleText({ schedule_kind: "interval", schedule_expr: "every 2 hours", timezone: "UTC" })).toBe(
      "every 2 hours",
    );
    expect(
      scheduleText({ schedule_kind: "once", schedule_expr: "2026-12-24T08:00:00+01:00", timezone: "Europe/Berlin" }),
    ).toBe("once at 2026-12-24T07:00:00Z");
    expect(scheduleText({ schedule_kind: "cron", schedule_expr: "0 8 * * *", timezone: "Mars/Olympus" })).toBe(
      "cron 0 8 * * *",
    );
  });

  test("durations from start (or claim) to completion; none while running", () => {
    expect(duration(run("2026-03-01T07:00:00.850Z"))).toBe("850ms");
    expect(duration(run("2026-03-01T07:00:04.290Z"))).toBe("4.2s");
    expect(duration(run("2026-03-01T07:03:12.000Z"))).toBe("3m12s");
    expect(duration(run("2026-03-01T08:05:00.000Z"))).toBe("1h5m");
    expect(duration(run("2026-03-01T07:00:01.000Z", null))).toBe("2.0s");
    expect(duration(run(null))).toBe("-");
  });

  test("answers fold to one line, cut at 100 characters", () => {
    expect(oneLine("a\n\tb  c\n")).toBe("a b c");
    const long = oneLine("word ".repeat(40));
    expect(long).toHaveLength(100);
    expect(long).toEndWith("…");
    expect(oneLine("  \n")).toBe("-");
    expect(at("2026-03-01T07:00:00.000Z")).toBe("2026-03-01T07:00:00Z");
    expect(at(null)).toBe("-");
  });

  test("a failed run shows its error; a tab in a field never breaks the columns", () => {
    const failed = {
      id: "run_1",
      job_id: "j",
      trigger: "schedule",
      status: "error",
      ...run("2026-03-01T07:00:01.000Z"),
      final_response: null,
      error: "provider\tunreachable:\nconnection refused",
    };
    expect(renderRuns([failed])).toBe(
      "run_1\tschedule\terror\t2026-03-01T07:00:00Z\t1.0s\tprovider unreachable: connection refused\n",
    );
  });
});
