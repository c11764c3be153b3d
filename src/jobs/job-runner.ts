import type { TurnInput, TurnResult } from "../agent/turn.ts";
import type { Caller } from "../capabilities/caller.ts";
import { defineError, FermixError } from "../error.ts";
import { TRUNCATION_MARKER } from "../gateway/truncation-marker.ts";
import { createBackoff } from "../net/backoff.ts";
import type { Route } from "../providers/routes.ts";
import { BudgetExceeded } from "../usage/budget-contract.ts";
import guidance from "./cron-guidance.md" with { type: "text" };
import type { JobStore } from "./job-store-contract.ts";
import type { DeliveryStatus, Job, JobRun, TokenUsage } from "./job-types.ts";
import { todayIn } from "./zoned-time.ts";

export const JobTimedOut = defineError("job_timeout");

/** The whole answer that means "nothing to report": the run is recorded, nothing is delivered. */
export const SILENT_MARKER = "[SILENT]";
/** A run's wall clock when its job sets none. */
export const DEFAULT_JOB_TIMEOUT_MS = 30 * 60 * 1000;
/**
 * Whole-run retries of a connection that could not be opened (the host waking from sleep), before any tool ran:
 * by the shared backoff rule from CONNECT_BACKOFF_MS (doubling, with jitter, so the jobs that fire together on
 * waking do not retry together), within CONNECT_BACKOFF_BUDGET_MS of waiting in all.
 */
export const CONNECT_RETRIES = 4;
export const CONNECT_BACKOFF_MS = 2_000;
export const CONNECT_BACKOFF_BUDGET_MS = 60_000;

export type Delivery = { status: Extract<DeliveryStatus, "sent" | "failed" | "pending">; error?: string };

export type JobRunnerDeps = {
  store: JobStore;
  /** One isolated agent turn (the app's, without slash commands or compaction). */
  turn(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  /** A pinned provider+model alone (strict), else the cron routing or the chain, resolved now. */
  routes(pin: { provider: string; model: string } | undefined): Route[];
  /** A skill's body and tool list, for a job bound to one; undefined when it no longer exists. */
  skill(name: string): Promise<{ instructions: string; allowedTools?: readonly string[] } | undefined>;
  /** Sends a finished run's message where the job says; `local` and `none` never get here. */
  deliver(job: Job, run: JobRun, message: string): Promise<Delivery>;
  /** Waits (boundedly, advisory) until the first route's host accepts connections. */
  networkReady?(routes: Route[]): Promise<void>;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
  sleep?: (ms: number) => Promise<void>;
  defaultTimeoutMs?: number;
};

/**
 * Runs one claimed job as an isolated agent loop: its own session (it cannot see the chat that created it),
 * its creator's trust, its narrowed tools, its deadline and watchdog; then records what happened and
 * delivers the answer — or the failure — where the job says.
 */
export function createJobRunner(deps: JobRunnerDeps) {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const inFlight = new Set<AbortController>();

  async function execute(job: Job, run: JobRun): Promise<void> {
    const timeoutMs = job.timeoutSeconds
      ? job.timeoutSeconds * 1000
      : (deps.defaultTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS);
    const startedAt = deps.now();
    const deadline = startedAt + timeoutMs;
    const controller = new AbortController();
    inFlight.add(controller);
    const wall = setTimeout(() => controller.abort(JobTimedOut(`wall-clock timeout after ${timeoutMs}ms`)), timeoutMs);
    const watchdog = inactivityWatchdog(job, controller);
    const usage: TokenUsage = { input: 0, output: 0, total: 0 };
    let toolFailures = 0;
    let toolsStarted = 0;
    let outcome: { status: "ok"; text: string } | { status: "error" | "timeout" | "budget"; error: string };
    try {
      const routes = deps.routes(job.provider && job.model ? { provider: job.provider, model: job.model } : undefined);
      const skill = job.skillName ? await deps.skill(job.skillName) : undefined;
      if (job.skillName && !skill) {
        throw new FermixError(
          "skill_missing",
          `the job is bound to the skill "${job.skillName}", which no longer exists`,
        );
      }
      const allowedTools = narrow(job.allowedTools, skill?.allowedTools);
      if (allowedTools?.length === 0 && job.allowedTools.length > 0) {
        throw new FermixError(
          "no_tools",
          `skill "${job.skillName}" and the job's allowed_tools have no tool in common; update the job`,
        );
      }
      if (deps.networkReady) await deps.networkReady(routes);
      const route = routes[0]!;
      const caller: Caller & { jobId: string } = {
        trust: job.createdByTrust,
        local: false,
        attended: false,
        jobId: job.id,
      };
      const input = (): TurnInput & { caller: Caller } => ({
        key: { channel: "cron", chat: run.sessionId },
        text: job.taskPrompt,
        caller,
        signal: controller.signal,
        onText: () => watchdog.activity(),
        job: {
          instructions: instructionsFor(job, skill?.instructions, deps.now()),
          routes,
          allowedTools,
          sessionId: run.sessionId,
          runId: run.id,
          router: { retryAttempts: 0 },
          onPrompt: (system, user) =>
            deps.store.started(run.id, {
              prompt: `SYSTEM:\n${system}\n---\nUSER:\n${user}`,
              config: configSnapshot(job, allowedTools, route),
            }),
          onUsage: (u) => {
            usage.input += u.inputTokens;
            usage.output += u.outputTokens;
            usage.total += u.inputTokens + u.outputTokens;
            watchdog.activity();
          },
          onToolStart: () => {
            toolsStarted++;
            watchdog.toolStarted();
          },
          onToolExecution: (e) => {
            if (!e.ok) toolFailures++;
            watchdog.toolEnded();
          },
          // The ledger's calls of this job since the run began, checked with the owner's budgets before each call.
          runLimit: job.maxUsd ? { jobId: job.id, jobName: job.name, maxUsd: job.maxUsd, since: startedAt } : undefined,
        },
      });
      const result = await withConnectRetry(() => deps.turn(input()), {
        retriable: () => toolsStarted === 0 && !controller.signal.aborted,
        deadline,
        now: deps.now,
        sleep,
        log: (msg) => deps.log.warn(`job ${job.id} run ${run.id}: ${msg}`),
      });
      // An answer cut at the model's output limit says so in the run record and wherever it is delivered.
      outcome = { status: "ok", text: result.truncated ? `${result.response}${TRUNCATION_MARKER}` : result.response };
    } catch (err) {
      const reason = controller.signal.reason;
      if (controller.signal.aborted && reason instanceof FermixError && reason.code === "job_timeout") {
        outcome = { status: "timeout", error: reason.message };
      } else if (BudgetExceeded.is(err)) {
        // Refused before its first model request, or stopped before its next one: the sentence says which budget.
        outcome = { status: "budget", error: err.message };
      } else {
        outcome = { status: "error", error: (err as Error)?.message ?? String(err) };
      }
    } finally {
      clearTimeout(wall);
      watchdog.stop();
      inFlight.delete(controller);
    }

    const silent = outcome.status === "ok" && outcome.text.trim() === SILENT_MARKER;
    const delivers = job.deliveryMode !== "none" && !silent;
    const settled = deps.store.finish(run.id, {
      status: outcome.status,
      finalResponse: outcome.status === "ok" ? outcome.text : undefined,
      error: outcome.status === "ok" ? undefined : outcome.error,
      tokenUsage: usage.total ? usage : undefined,
      toolFailures,
      deliveryStatus: silent ? "skipped" : delivers ? "pending" : "none",
    });
    deps.log.info(
      `job ${job.id} run ${run.id} (${run.trigger}) ${outcome.status}${outcome.status === "ok" ? "" : `: ${outcome.error}`}`,
    );
    if (!delivers || !settled) return;
    const message = deliveryMessage(job, settled);
    if (job.deliveryMode === "local") {
      deps.log.info(`job ${job.id} run ${run.id} result: ${message.slice(0, 500)}`);
      deps.store.delivered(run.id, "sent");
      return;
    }
    const delivery = await deps
      .deliver(job, settled, message)
      .catch((err: unknown): Delivery => ({ status: "failed", error: (err as Error)?.message ?? String(err) }));
    deps.store.delivered(run.id, delivery.status, delivery.error);
    if (delivery.status === "failed") deps.log.warn(`job ${job.id} run ${run.id}: delivery failed: ${delivery.error}`);
  }

  return {
    execute,
    /** The daemon is stopping: every run in flight ends now, recorded as interrupted. */
    abortAll(): void {
      for (const controller of inFlight) {
        controller.abort(new FermixError("interrupted", "interrupted: the daemon stopped during this run"));
      }
    },
  };
}

/** What a finished run delivers: its answer, or — a failure is delivered too — what went wrong. */
export function deliveryMessage(job: Job, run: JobRun): string {
  if (run.status === "ok") return run.finalResponse ?? "";
  return `Scheduled job "${job.name}" finished with ${run.status}.\nRun ID: ${run.id}\nError: ${run.error ?? "unknown"}`;
}

/**
 * The job's allowed_tools (empty: no narrowing) and its skill's (undefined: the trust default; empty: no tools),
 * intersected — never wider than either. Undefined when neither narrows.
 */
function narrow(job: readonly string[], skill: readonly string[] | undefined): string[] | undefined {
  const own = job.length ? [...job] : undefined;
  if (!skill) return own;
  return own ? own.filter((name) => skill.includes(name)) : [...skill];
}

function instructionsFor(job: Job, skillBody: string | undefined, now: number): string {
  const context = [
    "## Scheduled job",
    `- name: ${job.name} (id ${job.id})`,
    `- schedule: ${job.scheduleExpr} (${job.scheduleKind}, time zone ${job.timezone})`,
    `- delivery: ${job.deliveryMode}`,
    `- today: ${todayIn(now, job.timezone)}`,
  ].join("\n");
  return [guidance.trim(), skillBody ? `## Skill\n${skillBody.trim()}` : "", context].filter(Boolean).join("\n\n");
}

function configSnapshot(job: Job, allowedTools: string[] | undefined, route: Route): Record<string, unknown> {
  return {
    job_id: job.id,
    name: job.name,
    task_prompt: job.taskPrompt,
    schedule_kind: job.scheduleKind,
    schedule_expr: job.scheduleExpr,
    timezone: job.timezone,
    skill_name: job.skillName,
    provider: job.provider,
    model: job.model,
    timeout_seconds: job.timeoutSeconds,
    inactivity_timeout_seconds: job.inactivityTimeoutSeconds,
    max_usd: job.maxUsd,
    allowed_tools: allowedTools ?? [],
    trust: job.createdByTrust,
    delivery_mode: job.deliveryMode,
    delivery_target: job.deliveryTarget,
    route_used: { provider: route.descriptor.id, model: route.model, reasoning_effort: route.effort ?? null },
  };
}

/**
 * Fails the run when its loop stops making progress for the job's inactivity_timeout_seconds; unarmed when the
 * job sets none. A tool that is running is progress enough (a long build), so the clock pauses while one does.
 */
function inactivityWatchdog(job: Job, controller: AbortController) {
  const ms = job.inactivityTimeoutSeconds ? job.inactivityTimeoutSeconds * 1000 : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let toolsRunning = 0;
  const arm = () => {
    if (!ms) return;
    clearTimeout(timer);
    timer =
      toolsRunning > 0
        ? undefined
        : setTimeout(() => controller.abort(JobTimedOut(`inactivity timeout after ${ms}ms`)), ms);
  };
  arm();
  return {
    activity: arm,
    toolStarted() {
      toolsRunning++;
      arm();
    },
    toolEnded() {
      toolsRunning = Math.max(0, toolsRunning - 1);
      arm();
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * Re-runs the whole turn when the provider could not be reached at all (a pool-checkout style failure right after
 * the host wakes) and no tool has run yet — never once a tool has, which would replay its side effects.
 */
async function withConnectRetry<T>(
  run: () => Promise<T>,
  opts: {
    retriable: () => boolean;
    deadline: number;
    now: () => number;
    sleep: (ms: number) => Promise<void>;
    log: (msg: string) => void;
  },
): Promise<T> {
  let waited = 0;
  const waits = createBackoff({ initialMs: CONNECT_BACKOFF_MS, maxMs: CONNECT_BACKOFF_BUDGET_MS });
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const unreachable = err instanceof FermixError && err.data?.vendor_code === "connection_unavailable";
      const delay = waits.next();
      const fits = waited + delay <= CONNECT_BACKOFF_BUDGET_MS && opts.now() + delay < opts.deadline;
      if (!unreachable || attempt >= CONNECT_RETRIES || !fits || !opts.retriable()) throw err;
      opts.log(`provider unreachable (${err.message}); retrying the run in ${delay} ms`);
      waited += delay;
      await opts.sleep(delay);
    }
  }
}
