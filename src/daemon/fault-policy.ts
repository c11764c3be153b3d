import { isFermixError } from "../error.ts";
import { redact } from "../observability/redact.ts";
import type { Traces } from "../observability/traces.ts";
import { nodeModule } from "../runtime/host.ts";

// The daemon's one policy for an error nothing handled (issue 26): an unhandled rejection or an uncaught exception
// anywhere used to end every channel, job and turn at once (the runtime's default is to exit). Now each is logged
// with its stack, traced, counted for `fermix status` and doctor, and marks the part it came from degraded; the
// daemon keeps serving. Only a burst ends it, with a non-zero code, so the service manager starts a fresh one:
// a process that keeps failing that fast is in a state nobody should trust, and staying up would hide it.

/** More than `max` faults within `windowMs` is a burst. */
export const FAULT_BURST = { max: 20, windowMs: 60_000 } as const;

/** Longest error text kept in a trace line or a part's status (the log has the whole stack). */
const DETAIL_CHARS = 500;

/** Where a fault surfaced: the process-wide events, or a caller that reports one itself. */
export type FaultSource = "unhandledRejection" | "uncaughtException" | (string & {});

/** Where faults go once the app exists. */
export type FaultSink = {
  /** The app's log (it redacts every registered secret). */
  log: { error(message: string): void };
  traces: Pick<Traces, "write">;
  /** The daemon's parts, to mark the one a fault names degraded. */
  parts: readonly { readonly name: string; fault(detail: string): void }[];
};

/** The two process events the policy takes over, as `process` offers them (a fake in tests). */
export type FaultEvents = {
  on(event: "unhandledRejection" | "uncaughtException", listener: (err: unknown) => void): unknown;
  off(event: "unhandledRejection" | "uncaughtException", listener: (err: unknown) => void): unknown;
};

export interface FaultPolicy {
  /** One fault: logged, traced, counted, its part degraded; a burst calls `onBurst` (once). */
  report(err: unknown, source: FaultSource): void;
  /** Faults since the daemon started. */
  count(): number;
  /** From now on faults go to the app's log, traces and parts (before: one line on stderr each). */
  attach(sink: FaultSink): void;
  /** Takes over the process's unhandled rejections and uncaught exceptions; returns the undo. */
  install(events: FaultEvents): () => void;
}

export type FaultPolicyDeps = {
  now: () => number;
  /** A burst: the daemon should stop and exit with a non-zero code. */
  onBurst(faults: number): void;
  /** Before the app exists (its log, its traces): a line for stderr. */
  early(line: string): void;
  burst?: { max: number; windowMs: number };
};

/**
 * The part a fault came from, where that is known: a FermixError whose data names it (`data.part`), as a part's
 * background work marks an error it lets go. The stack cannot say: the binary is minified, without source maps.
 */
export function faultPart(err: unknown): string | undefined {
  if (!isFermixError(err)) return undefined;
  const part = (err.data as { part?: unknown }).part;
  return typeof part === "string" ? part : undefined;
}

export function createFaultPolicy(deps: FaultPolicyDeps): FaultPolicy {
  const burst = deps.burst ?? FAULT_BURST;
  let sink: FaultSink | undefined;
  let total = 0;
  let recent: number[] = [];
  let burstSaid = false;

  // Reporting a fault must never be one: a full disk under the log or the traces is swallowed here.
  const quietly = (what: () => void) => {
    try {
      what();
    } catch {}
  };

  function report(err: unknown, source: FaultSource) {
    const at = deps.now();
    total += 1;
    recent = recent.filter((t) => at - t < burst.windowMs);
    recent.push(at);
    const part = faultPart(err);
    const summary = clip(redact(oneLine(err)));
    const where = `${source}${part ? ` in ${part}` : ""}`;
    if (!sink) {
      quietly(() => deps.early(`fermix: unexpected error (${where}), fermix keeps running: ${redact(stackOf(err))}\n`));
    } else {
      const to = sink;
      quietly(() => to.log.error(`unexpected error (${where}); fermix keeps running: ${stackOf(err)}`));
      quietly(() =>
        to.traces.write("agent_event", {
          event: "daemon_error",
          source,
          ...(part ? { part } : {}),
          error: summary,
          faults: total,
          within_window: recent.length,
        }),
      );
      if (part) quietly(() => to.parts.find((p) => p.name === part)?.fault(summary));
    }
    if (recent.length > burst.max && !burstSaid) {
      burstSaid = true;
      const line = `${recent.length} unexpected errors within ${burst.windowMs / 1000} s: fermix stops and exits with an error so that its service manager starts it afresh`;
      quietly(() => (sink ? sink.log.error(line) : deps.early(`fermix: ${line}\n`)));
      deps.onBurst(recent.length);
    }
  }

  return {
    report,
    count: () => total,
    attach(next) {
      sink = next;
    },
    install(events) {
      const onRejection = (err: unknown) => report(err, "unhandledRejection");
      const onException = (err: unknown) => report(err, "uncaughtException");
      events.on("unhandledRejection", onRejection);
      events.on("uncaughtException", onException);
      return () => {
        events.off("unhandledRejection", onRejection);
        events.off("uncaughtException", onException);
      };
    },
  };
}

/** A rejection may carry anything (`Promise.reject("x")`, undefined): an Error's stack, else what it was. */
function stackOf(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  // node:util loads here, on the first such value, not with every daemon's boot.
  const { inspect } = nodeModule<typeof import("node:util")>("node:util");
  return `a non-error value: ${inspect(err, { depth: 2, breakLength: Number.POSITIVE_INFINITY })}`;
}

function oneLine(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.replace(/\s+/g, " ");
  return stackOf(err).replace(/\s+/g, " ");
}

function clip(text: string): string {
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS - 1)}…` : text;
}
