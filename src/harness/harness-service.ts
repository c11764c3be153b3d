import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import { newId } from "../ids.ts";
import { type ChannelDeliveryDeps, deliverToChannel, deliverToTarget } from "../jobs/channel-delivery.ts";
import type { JobService } from "../jobs/job-service.ts";
import type { ConversationKey } from "../memory/messages.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { CliDetector } from "./cli-detect.ts";
import { readEvent } from "./events.ts";
import { vendorEnv } from "./harness-env.ts";
import { createHarnessStore, type HarnessStore, type RunEnd } from "./harness-store.ts";
import {
  type FailureTag,
  HARNESS_DEFAULTS,
  HarnessRefused,
  type HarnessRun,
  VENDOR_COMMAND,
  VENDOR_LABEL,
  type Vendor,
} from "./harness-types.ts";
import { readJsonLines } from "./json-lines.ts";
import { createMilestonePoster } from "./milestones.ts";
import { startVendorProcess, type VendorProcess } from "./run-process.ts";

export type HarnessServiceDeps = {
  db: SqlDatabase;
  /** Only the daemon runs coding runs: a one-shot ask would end, and its run with it. */
  role: "daemon" | "oneshot";
  config: () => Config;
  env: Record<string, string | undefined>;
  /** FERMIX_HOME: each run keeps its files (last message, output schema) under harness/runs/<id>/. */
  home: string;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
  cli: CliDetector;
  /** The running chat channel for a platform, where results and milestones go. */
  channel?: ChannelDeliveryDeps["channel"];
  /** Jobs, for a run a scheduled job asked for: its result follows the job's delivery. */
  jobs?: () => Promise<JobService>;
  /** Least time between two milestones posted to a chat. */
  milestoneIntervalMs?: number;
};

export type StartRequest = {
  vendor: Vendor;
  prompt: string;
  /** Canonical, already checked against the sandbox. */
  cwd: string;
  /** Folders the run may write beyond cwd (also locked while it runs). */
  addDirs: string[];
  /** The CLI's arguments, given the run's own folder for its files. */
  args(runDir: string): string[];
  /** What the model asked, kept with the record. */
  params: Record<string, unknown>;
  progress: "quiet" | "milestones";
  timeoutMinutes?: number;
  origin: ConversationKey;
  jobId?: string;
};

type Active = {
  run: HarnessRun;
  locks: string[];
  proc?: VendorProcess;
  stop?: "cancelled" | "timeout" | "inactivity" | "framing" | "shutdown";
  done: Promise<HarnessRun>;
};

/** Coding-harness runs: admission, the vendor process, its event stream, and the result's delivery. */
export function createHarnessService(deps: HarnessServiceDeps) {
  const store: HarnessStore = createHarnessStore(deps.db, deps.now);
  const active = new Map<string, Active>();
  const settings = () => {
    const h = deps.config().fermix_core?.harness ?? {};
    return {
      maxActive: h.max_active ?? HARNESS_DEFAULTS.maxActive,
      timeoutMinutes: h.default_timeout_minutes ?? HARNESS_DEFAULTS.defaultTimeoutMinutes,
      inactivityMinutes: h.inactivity_minutes ?? HARNESS_DEFAULTS.inactivityMinutes,
      promptMaxKb: h.prompt_argv_max_kb ?? HARNESS_DEFAULTS.promptArgvMaxKb,
      maxEventBytes: h.max_event_bytes ?? HARNESS_DEFAULTS.maxEventBytes,
      maxFramingErrors: h.max_framing_errors ?? HARNESS_DEFAULTS.maxFramingErrors,
    };
  };
  // A daemon that was killed left its runs marked active; their processes were reaped at its start.
  if (deps.role === "daemon") {
    for (const run of store.interruptLeftovers("fermix stopped while the run was going; it was not resumed")) {
      deps.log.warn(`coding run ${run.id} was left running by a previous daemon: marked interrupted`);
    }
  }

  const refuse = (data: { tag: FailureTag }, message: string) => HarnessRefused(message, data);

  const admit = (req: StartRequest): { cli: string; locks: string[] } => {
    const config = deps.config().fermix_core?.harness;
    const label = VENDOR_LABEL[req.vendor];
    if (config?.enabled === false) {
      throw refuse(
        { tag: "not_authorized" },
        "The coding harness is turned off ([fermix_core.harness] enabled = false).",
      );
    }
    if (config?.approved !== true) {
      throw refuse(
        { tag: "consent_required" },
        "The owner has not approved coding-harness runs yet (Setup → Coding agents, or [fermix_core.harness] approved = true).",
      );
    }
    if (deps.role !== "daemon") {
      throw refuse(
        { tag: "daemon_required" },
        "Coding runs run in the fermix daemon (start it with `fermix start`): a one-shot ask would end the run with it.",
      );
    }
    const cli = deps.cli(req.vendor);
    if (!cli) {
      throw refuse(
        { tag: "cli_unavailable" },
        `The ${label} CLI (\`${VENDOR_COMMAND[req.vendor]}\`) was not found on the daemon's PATH; install it and restart fermix.`,
      );
    }
    const s = settings();
    if (Buffer.byteLength(req.prompt) > s.promptMaxKb * 1024) {
      throw refuse(
        { tag: "not_authorized" },
        `The prompt is longer than ${s.promptMaxKb} KB ([fermix_core.harness] prompt_argv_max_kb); shorten it or put the details in a file in the repo and point to it.`,
      );
    }
    if (active.size >= s.maxActive) {
      throw refuse(
        { tag: "max_active" },
        `${active.size} coding runs are already active (limit ${s.maxActive}, [fermix_core.harness] max_active); wait for one to finish or stop one with cancel_coding_run.`,
      );
    }
    const locks = [req.cwd, ...req.addDirs];
    for (const other of active.values()) {
      const clash = locks.find((a) => other.locks.some((b) => overlaps(a, b)));
      if (clash) {
        throw refuse(
          { tag: "workspace_locked" },
          `Coding run ${other.run.id} is still working in ${clash}; one run per workspace at a time. Wait for it (get_coding_run ${other.run.id}) or cancel it.`,
        );
      }
    }
    return { cli, locks };
  };

  const start = (req: StartRequest): HarnessRun => {
    const { cli, locks } = admit(req);
    const id = newId("hr", 6);
    const runDir = join(deps.home, "harness", "runs", id);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const args = req.args(runDir);
    const run = store.create({
      id,
      vendor: req.vendor,
      cwd: req.cwd,
      prompt: req.prompt,
      argv: [VENDOR_COMMAND[req.vendor], ...args],
      params: req.params,
      progress: req.progress,
      origin: req.origin,
      jobId: req.jobId,
      startedAt: deps.now(),
    });
    const entry: Active = { run, locks, done: Promise.resolve(run) };
    active.set(id, entry);
    try {
      entry.proc = startVendorProcess([cli, ...args], {
        cwd: req.cwd,
        env: vendorEnv(deps.env, req.vendor, deps.config()),
      });
    } catch (err) {
      active.delete(id);
      store.finish(id, {
        status: "failed",
        failureTag: "spawn_failed",
        error: `could not start ${cli}: ${(err as Error).message}`,
      });
      throw refuse(
        { tag: "cli_unavailable" },
        `${VENDOR_LABEL[req.vendor]} could not be started: ${(err as Error).message}`,
      );
    }
    store.running(id, entry.proc.pid);
    deps.log.info(`coding run ${id} (${req.vendor}) started in ${req.cwd}, pid ${entry.proc.pid}`);
    entry.done = follow(entry, req, runDir).finally(() => active.delete(id));
    return store.get(id)!;
  };

  /** Reads the run's stream to its end, enforces its clocks, records the outcome and delivers it. */
  const follow = async (entry: Active, req: StartRequest, runDir: string): Promise<HarnessRun> => {
    const proc = entry.proc!;
    const s = settings();
    const id = entry.run.id;
    const timeoutMinutes = Math.min(req.timeoutMinutes ?? s.timeoutMinutes, HARNESS_DEFAULTS.timeoutCapMinutes);
    const halt = (why: NonNullable<Active["stop"]>) => {
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
      send: (text) => sendToOrigin(req.origin, text).then(() => {}),
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
    const end = outcome({ entry, req, exitCode, final, vendorError, timeoutMinutes, s, stderr: proc.stderrTail() });
    store.finish(id, { ...end, events, framingErrors, usage, vendorSession: session });
    const run = store.get(id)!;
    deps.log.info(`coding run ${id} ${run.status}${run.failureTag ? ` (${run.failureTag})` : ""}`);
    if (entry.stop !== "shutdown") await deliver(run);
    return store.get(id)!;
  };

  const outcome = (o: {
    entry: Active;
    req: StartRequest;
    exitCode: number;
    final?: string;
    vendorError?: string;
    timeoutMinutes: number;
    s: ReturnType<typeof settings>;
    stderr: string;
  }): RunEnd => {
    const label = VENDOR_LABEL[o.req.vendor];
    const base = { exitCode: o.exitCode, ...(o.final !== undefined ? { finalMessage: o.final } : {}) };
    switch (o.entry.stop) {
      case "cancelled":
        return { ...base, status: "cancelled", error: "cancelled with cancel_coding_run" };
      case "shutdown":
        return { ...base, status: "interrupted", error: "fermix stopped while the run was going" };
      case "timeout":
        return {
          ...base,
          status: "failed",
          failureTag: "timeout",
          error: `stopped after its ${o.timeoutMinutes}-minute limit`,
        };
      case "inactivity":
        return {
          ...base,
          status: "failed",
          failureTag: "inactivity",
          error: `${label} printed nothing for ${o.s.inactivityMinutes} minutes ([fermix_core.harness] inactivity_minutes)`,
        };
      case "framing":
        return {
          ...base,
          status: "failed",
          failureTag: "framing",
          error: `${label}'s output stopped being JSON events (more than ${o.s.maxFramingErrors} bad lines)`,
        };
    }
    if (o.vendorError) return { ...base, status: "failed", failureTag: "vendor_error", error: o.vendorError };
    if (o.exitCode !== 0) {
      return {
        ...base,
        status: "failed",
        failureTag: "exit_nonzero",
        error: `${VENDOR_COMMAND[o.req.vendor]} exited with ${o.exitCode}${o.stderr ? `: ${o.stderr.slice(-600)}` : ""}`,
      };
    }
    return { ...base, status: "completed" };
  };

  /** A chat gets it now; a CLI session sees it before its next ask; a job's run follows the job's delivery. */
  const deliver = async (run: HarnessRun): Promise<void> => {
    const message = resultMessage(run);
    try {
      if (run.jobId && deps.jobs) {
        const job = (await deps.jobs()).store.get(run.jobId);
        if (!job || job.deliveryMode === "none" || job.deliveryMode === "local") {
          store.delivered(run.id, "stored");
          return;
        }
        const d = await deliverToChannel(job, message, { channel: deps.channel });
        store.delivered(run.id, d.status, d.error);
        return;
      }
      if (run.origin.channel === "cli") {
        store.delivered(run.id, "pending");
        return;
      }
      const d = await sendToOrigin(run.origin, message);
      store.delivered(run.id, d.status, d.error);
      if (d.error) deps.log.warn(`coding run ${run.id}: ${d.error}`);
    } catch (err) {
      store.delivered(run.id, "failed", (err as Error).message);
    }
  };

  const sendToOrigin = (origin: ConversationKey, message: string) =>
    deliverToTarget(
      { platform: origin.channel, chat_id: origin.chat, ...(origin.thread ? { thread: origin.thread } : {}) },
      message,
      { channel: deps.channel },
      "read the result with get_coding_run",
    );

  return {
    store,
    start,
    get: (id: string) => store.get(id),
    list: (filter?: Parameters<HarnessStore["list"]>[0]) => store.list(filter),
    /** Stops an active run of this process; the run as it ended (undefined: no such run). */
    async cancel(id: string): Promise<HarnessRun | undefined> {
      const entry = active.get(id);
      if (!entry) return store.get(id);
      if (!entry.stop) entry.stop = "cancelled";
      await entry.proc?.stop();
      return entry.done;
    },
    /** Resolves once the run has ended and its result was delivered (tests, shutdown). */
    settled: async (id: string): Promise<HarnessRun | undefined> => (await active.get(id)?.done) ?? store.get(id),
    activeCount: () => active.size,
    /** Results waiting for this conversation's next turn; each is marked sent once returned. */
    takePending(conversation: ConversationKey): Array<{ run: HarnessRun; message: string }> {
      return store.pendingFor(conversation).map((run) => {
        store.delivered(run.id, "sent");
        return { run, message: resultMessage(run) };
      });
    },
    /** The daemon stops: every run it started is ended and recorded as interrupted. */
    async stopAll(): Promise<void> {
      const entries = [...active.values()];
      for (const entry of entries) entry.stop ??= "shutdown";
      await Promise.all(
        entries.map(async (e) => {
          await e.proc?.stop();
          await e.done.catch(() => undefined);
        }),
      );
    },
  };
}

export type HarnessService = ReturnType<typeof createHarnessService>;

/** The sentence a finished run is reported with: the vendor's own final message when there is one. */
export function resultMessage(run: HarnessRun): string {
  const label = VENDOR_LABEL[run.vendor];
  const minutes = run.completedAt ? Math.max(1, Math.round((run.completedAt - run.startedAt) / 60_000)) : undefined;
  const took = minutes ? ` after ${minutes} min` : "";
  const answer = run.finalMessage?.trim();
  switch (run.status) {
    case "completed":
      return `Coding run ${run.id} (${label} in ${run.cwd}) finished${took}.\n\n${answer || "(it gave no final message)"}`;
    case "cancelled":
      return `Coding run ${run.id} (${label} in ${run.cwd}) was cancelled${took}.`;
    case "interrupted":
      return `Coding run ${run.id} (${label} in ${run.cwd}) was interrupted: ${run.error ?? "fermix stopped"}.`;
    default:
      return `Coding run ${run.id} (${label} in ${run.cwd}) failed${run.failureTag ? ` [${run.failureTag}]` : ""}${took}: ${run.error ?? "no reason given"}${answer ? `\n\nIts last message:\n${answer}` : ""}`;
  }
}

function overlaps(a: string, b: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
  return within(a, b) || within(b, a);
}

function readLastMessage(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8");
    return text.trim() ? text.trim() : undefined;
  } catch {
    return undefined;
  }
}
