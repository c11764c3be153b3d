import { describe, expect, test } from "bun:test";
import { createFaultPolicy, FAULT_BURST, type FaultEvents, faultPart } from "../../src/daemon/fault-policy.ts";
import { FermixError } from "../../src/error.ts";

/** The policy with recording sinks and a clock the test moves. */
function policy() {
  let now = 1_000_000;
  const logged: string[] = [];
  const early: string[] = [];
  const traced: Array<Record<string, unknown>> = [];
  const faults: Record<string, string[]> = { jobs: [], channels: [] };
  const bursts: number[] = [];
  const p = createFaultPolicy({
    now: () => now,
    early: (line) => early.push(line),
    onBurst: (n) => bursts.push(n),
  });
  const sink = {
    log: { error: (line: string) => logged.push(line) },
    traces: { write: (type: string, record: Record<string, unknown>) => traced.push({ type, ...record }) },
    parts: Object.keys(faults).map((name) => ({ name, fault: (detail: string) => faults[name]!.push(detail) })),
  };
  return { p, sink, logged, early, traced, faults, bursts, tick: (ms: number) => (now += ms) };
}

const fromJobs = (message: string) => new FermixError("boom", message, { part: "jobs" });

describe("the daemon's fault policy", () => {
  test("a fault is logged with its stack, traced as daemon_error, counted, and degrades the part it names", () => {
    const { p, sink, logged, traced, faults } = policy();
    p.attach(sink);
    p.report(fromJobs("the clock fell over"), "unhandledRejection");
    p.report(new TypeError("Cannot read properties of null (reading 'session_id')"), "uncaughtException");
    expect(p.count()).toBe(2);
    expect(logged[0]).toStartWith(
      "unexpected error (unhandledRejection in jobs); fermix keeps running: FermixError: the clock fell over\n    at ",
    );
    expect(logged[1]).toStartWith("unexpected error (uncaughtException); fermix keeps running: TypeError: Cannot read");
    expect(traced).toEqual([
      {
        type: "agent_event",
        event: "daemon_error",
        source: "unhandledRejection",
        part: "jobs",
        error: "FermixError: the clock fell over",
        faults: 1,
        within_window: 1,
      },
      {
        type: "agent_event",
        event: "daemon_error",
        source: "uncaughtException",
        error: "TypeError: Cannot read properties of null (reading 'session_id')",
        faults: 2,
        within_window: 2,
      },
    ]);
    // Only the part the error names; one that names none degrades nothing (the minified binary's stack cannot say).
    expect(faults).toEqual({ jobs: ["FermixError: the clock fell over"], channels: [] });
  });

  test("what a rejection carries need not be an Error; a credential in it is redacted from the part's detail", () => {
    const { p, sink, logged, traced, faults } = policy();
    p.attach(sink);
    p.report(undefined, "unhandledRejection");
    p.report({ why: "a plain object" }, "unhandledRejection");
    p.report(fromJobs("upstream said: bad key sk-ant-api03-abcdefghijklmnop"), "unhandledRejection");
    expect(logged[0]).toEndWith("fermix keeps running: a non-error value: undefined");
    expect(traced[1]!.error).toBe("a non-error value: { why: 'a plain object' }");
    expect(faults.jobs![0]).toBe("FermixError: upstream said: bad key [REDACTED:anthropic]");
    expect(traced[2]!.error).toBe("FermixError: upstream said: bad key [REDACTED:anthropic]");
  });

  test("before the app exists a fault is a line on stderr, still counted", () => {
    const { p, early, traced } = policy();
    p.report(new Error("too early"), "uncaughtException");
    expect(p.count()).toBe(1);
    expect(early[0]).toStartWith(
      "fermix: unexpected error (uncaughtException), fermix keeps running: Error: too early",
    );
    expect(traced).toEqual([]);
  });

  test(`${FAULT_BURST.max} within a minute are survived; one more is a burst, said once`, () => {
    const { p, sink, logged, bursts } = policy();
    p.attach(sink);
    for (let i = 0; i < FAULT_BURST.max; i++) p.report(new Error(`fault ${i}`), "unhandledRejection");
    expect(bursts).toEqual([]);
    p.report(new Error("one too many"), "unhandledRejection");
    p.report(new Error("and another"), "unhandledRejection");
    expect(bursts).toEqual([FAULT_BURST.max + 1]);
    expect(logged).toContain(
      "21 unexpected errors within 60 s: fermix stops and exits with an error so that its service manager starts it afresh",
    );
  });

  test("the window slides: the same number spread over more than a minute is no burst", () => {
    const { p, sink, bursts, traced, tick } = policy();
    p.attach(sink);
    for (let i = 0; i < 40; i++) {
      p.report(new Error(`fault ${i}`), "unhandledRejection");
      tick(FAULT_BURST.windowMs / 15);
    }
    expect(bursts).toEqual([]);
    expect(p.count()).toBe(40);
    expect(Math.max(...traced.map((t) => t.within_window as number))).toBe(15);
  });

  test("a sink that throws (a full disk under the log) does not make reporting a fault a fault", () => {
    const { p, faults } = policy();
    const broken = () => {
      throw new Error("ENOSPC");
    };
    p.attach({
      log: { error: broken },
      traces: { write: broken },
      parts: [{ name: "jobs", fault: (d) => faults.jobs!.push(d) }],
    });
    expect(() => p.report(fromJobs("x"), "unhandledRejection")).not.toThrow();
    expect(faults.jobs).toEqual(["FermixError: x"]);
  });

  test("it takes over the process's two events, and gives them back", () => {
    const { p, sink, traced } = policy();
    p.attach(sink);
    const listeners = new Map<string, (err: unknown) => void>();
    const events: FaultEvents = {
      on: (event, listener) => listeners.set(event, listener),
      off: (event) => listeners.delete(event),
    };
    const undo = p.install(events);
    listeners.get("unhandledRejection")!(new Error("rejected"));
    listeners.get("uncaughtException")!(new Error("thrown"));
    expect(traced.map((t) => t.source)).toEqual(["unhandledRejection", "uncaughtException"]);
    undo();
    expect(listeners.size).toBe(0);
  });

  test("the part is read from a FermixError's data only", () => {
    expect(faultPart(fromJobs("x"))).toBe("jobs");
    expect(faultPart(new FermixError("x", "y", { part: 3 }))).toBeUndefined();
    expect(faultPart(Object.assign(new Error("x"), { data: { part: "jobs" } }))).toBeUndefined();
  });
});
