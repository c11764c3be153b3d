import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ActiveRun, StopReason } from "./active-run.ts";
import { readEvent } from "./events.ts";
import type { StartRequest } from "./harness-service-contract.ts";
import type { HarnessSettings } from "./harness-settings.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import { HARNESS_DEFAULTS, type HarnessRun, VENDOR_LABEL } from "./harness-types.ts";
import { readJsonLines } from "./json-lines.ts";
import { createMilestonePoster } from "./milestones.ts";
import type { ResultDelivery } from "./result-delivery.ts";
import { runOutcome } from "./run-outcome.ts";

export type FollowDeps = {
  store: HarnessStore;
  settings: () => HarnessSettings;
  log: { info(msg: string): void; warn(msg: string): void };
  delivery: ResultDelivery;
  /** Least time between two milestones posted to a chat. */
  milestoneIntervalMs?: number;
};

/** Reads the run's stream to its end, enforces its clocks, records the outcome and starts its delivery. */
export async function followRun(
  deps: FollowDeps,
  entry: ActiveRun,
  req: StartRequest,
  runDir: string,
): Promise<HarnessRun> {
  const { store } = deps;
  const proc = entry.proc!;
  const s = deps.settings();
  const id = entry.run.id;
  const timeoutMinutes = Math.min(req.timeoutMinutes ?? s.timeoutMinutes, HARNESS_DEFAULTS.timeoutCapMinutes);
  const halt = (why: StopReason) => {
    if (entry.stop) return;
    entry.stop = why;
    void proc.stop();
  };
  const wallClock = setTimeout(() => halt("timeout"), timeoutMinutes * 60_000);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => halt("inactivity"), s.inactivityMinutes * 60_000);
  };
  touch();
  const poster = createMilestonePoster({
    enabled: req.progress === "milestones" && !req.jobId,
    send: (text) => deps.delivery.sendToOrigin(req.origin, text).then(() => {}),
    intervalMs: deps.milestoneIntervalMs ?? 20_000,
    prefix: `⏳ ${id} (${VENDOR_LABEL[req.vendor]}): `,
  });
  let events = 0;
  let framingErrors = 0;
  let session: string | undefined;
  let final: string | undefined;
  let vendorError: string | undefined;
  let usage: unknown;
  try {
    await readJsonLines(proc.stdout, {
      maxBytes: s.maxEventBytes,
      onValue: (value) => {
        touch();
        events++;
        const news = readEvent(req.vendor, value);
        if (!news) return;
        if (news.session) session = news.session;
        if (news.final !== undefined) final = news.final;
        if (news.usage !== undefined) usage = news.usage;
        if (news.error) vendorError = news.error;
        if (news.milestone) poster.post(news.milestone);
        if (news.session || news.milestone) {
          store.progress(id, { vendorSession: news.session, milestone: news.milestone, events, framingErrors });
        }
      },
      onFramingError: (why) => {
        touch();
        framingErrors++;
        deps.log.warn(`coding run ${id}: ${why}`);
        if (framingErrors > s.maxFramingErrors) halt("framing");
      },
    });
  } catch (err) {
    deps.log.warn(`coding run ${id}: reading its output failed: ${(err as Error).message}`);
  }
  const exitCode = await proc.exited;
  clearTimeout(wallClock);
  clearTimeout(idle);
  poster.close();
  if (req.vendor === "codex") final = readLastMessage(join(runDir, "last-message.txt")) ?? final;
  const end = runOutcome({
    stop: entry.stop,
    vendor: req.vendor,
    exitCode,
    final,
    vendorError,
    timeoutMinutes,
    s,
    stderr: proc.stderrTail(),
  });
  store.finish(id, { ...end, events, framingErrors, usage, vendorSession: session });
  const run = store.get(id)!;
  deps.log.info(`coding run ${id} ${run.status}${run.failureTag ? ` (${run.failureTag})` : ""}`);
  // Not awaited: a delivery retried with back-off must not hold the run's slot and workspace lock (settled() waits).
  if (entry.stop !== "shutdown") void deps.delivery.deliver(run);
  return store.get(id)!;
}

function readLastMessage(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8");
    return text.trim() ? text.trim() : undefined;
  } catch {
    return undefined;
  }
}
