import * as v from "valibot";
import { isFermixError } from "../../error.ts";
import type { JobActor } from "../../jobs/job-operations.ts";
import type { JobService } from "../../jobs/job-service-contract.ts";
import type { JobPatch } from "../../jobs/job-store-contract.ts";
import type { JobState, RunStatus } from "../../jobs/job-types.ts";
import type { Schedule } from "../../jobs/schedule.ts";
import type { ConversationKey } from "../../memory/messages-contract.ts";
import { builtOnce, lazySchema } from "../../valibot-lazy.ts";
import { type AnyTool, defineTool, type ToolContext, type ToolResult } from "../tool.ts";
import {
  AllowedToolsArg,
  checkAllowedTools,
  checkPin,
  checkSkill,
  DeliveryModeArg,
  DeliveryTargetArg,
  isoSeconds,
  JobId,
  JobRefused,
  jobArgs,
  MAX_JOB_SECONDS,
  MaxUsdArg,
  MaxUsdEdit,
  ModelArg,
  ProviderArg,
  parseExpiresAt,
  resolveDelivery,
  ScheduleArg,
  Seconds,
  SkillArg,
  Text,
  TimezoneArg,
} from "./_job-args.ts";

const NOT_WIRED: ToolResult = { isError: true, content: "scheduled jobs are not available here" };
const TRUSTLESS = "schedule_job requires a source_trust in context; this context cannot create scheduled jobs.";
const NOTHING_TO_UPDATE =
  "Provide at least one of task, schedule, description, skill_name, provider/model, max_usd, or delivery to update.";
const CREATION_ONLY =
  "set at creation only; update_job cannot change it (remove the job and schedule it again with the new value)";
/** A job made where there is no conversation (not a chat, not a CLI session) belongs to none. */
const NO_CONVERSATION: ConversationKey = { channel: "none", chat: "" };

const JOB_STATES = ["scheduled", "running", "paused", "disabled", "completed"] as const satisfies readonly JobState[];
const RUN_STATUSES = ["queued", "running", "ok", "error", "timeout", "budget"] as const satisfies readonly RunStatus[];
const RunId = builtOnce(() => v.pipe(Text(200), v.description("the run's id (run_…), as list_job_runs shows it")));
const JobIdOnly = (tool: string) => jobArgs(tool, { job_id: JobId() });

/**
 * The job machinery (operations, payloads, the schedule parser and cron-schedule) loads with the first job call,
 * not with the tool list: every turn offers these tools and few call one (issue 31: the one-shot ask's import).
 */
async function loadJobs() {
  const [operations, payload, schedule] = await Promise.all([
    import("../../jobs/job-operations.ts"),
    import("../../jobs/job-payload.ts"),
    import("../../jobs/schedule.ts"),
  ]);
  return { ...operations, ...payload, ...schedule };
}
type Jobs = Awaited<ReturnType<typeof loadJobs>>;
type Operations = ReturnType<Jobs["jobOperations"]>;

/** Runs a job tool's body with the service; a refusal (a FermixError) becomes an error result carrying its sentence. */
async function withJobs(
  ctx: ToolContext,
  work: (service: JobService, ops: Operations, jobs: Jobs) => Promise<ToolResult | string> | ToolResult | string,
): Promise<ToolResult | string> {
  if (!ctx.jobs) return NOT_WIRED;
  const service = await ctx.jobs();
  const jobs = await loadJobs();
  try {
    return await work(service, jobs.jobOperations(service, ctx.now), jobs);
  } catch (err) {
    if (isFermixError(err)) return { isError: true, content: err.message };
    throw err;
  }
}

/** The owner acts on every job; a guest only on the jobs it made in this conversation (job-operations decides). */
function actorOf(ctx: ToolContext): JobActor {
  const trust = ctx.caller?.trust;
  if (trust !== "operator" && trust !== "guest") {
    throw JobRefused("this context carries no trust, so it cannot read or change scheduled jobs");
  }
  return { trust, conversation: ctx.conversation };
}

/** A schedule as the job will run it: the parse error's own sentence when it does not parse, refused with no future run. */
function scheduleFor(jobs: Jobs, expr: string, timezone: string, now: number): { schedule: Schedule; next: number } {
  const parsed = jobs.parseSchedule(expr, timezone);
  if (!parsed.ok) throw JobRefused(parsed.error);
  const next = jobs.nextRunAt(parsed.schedule, now);
  if (next === null) {
    throw JobRefused(`the schedule "${expr}" has no future run (now is ${isoSeconds(now)}); give one that runs again`);
  }
  return { schedule: parsed.schedule, next };
}

const json = (value: unknown) => JSON.stringify(value);

export const scheduleJob = defineTool({
  name: "schedule_job",
  description: "Schedule a task to run later on its own: once, every N minutes/hours/days, or cron.",
  policy: "job_write",
  readOnly: false,
  parameters: lazySchema(() =>
    jobArgs("schedule_job", {
      name: v.pipe(Text(200), v.description("a short name for the job")),
      schedule: ScheduleArg(),
      task: v.pipe(
        Text(20_000),
        v.description("what the run should do, with every fact it needs: runs cannot see this conversation"),
      ),
      description: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000))),
      timezone: v.optional(TimezoneArg()),
      expires_at: v.optional(
        v.pipe(v.string(), v.trim(), v.description("ISO 8601 instant with offset after which the job stops")),
      ),
      allowed_tools: v.optional(AllowedToolsArg()),
      skill_name: v.optional(SkillArg()),
      provider: v.optional(ProviderArg()),
      model: v.optional(ModelArg()),
      timeout_seconds: v.optional(Seconds("each run's wall clock (default 30 minutes)")),
      inactivity_timeout_seconds: v.optional(Seconds("fail a run that makes no progress for this long")),
      max_usd: v.optional(MaxUsdArg()),
      delivery_mode: v.optional(DeliveryModeArg()),
      delivery_target: v.optional(DeliveryTargetArg()),
    }),
  ),
  help: [
    'Schedules: "every N minutes|hours|days"; one ISO 8601 instant with offset (runs once); or 5-field cron "minute hour day-of-month month weekday" (*, lists 1,15, ranges 9-17, steps */15; 0 and 7 are Sunday), evaluated in timezone (default: the owner\'s). Free-form English ("daily at 8am") is refused: write 0 8 * * *.',
    "Runs are isolated agent loops at your trust; they cannot see this conversation, so put every fact the task needs into task.",
    "allowed_tools narrows a run to some of your own tools; skill_name runs it inside a skill's limits; provider+model (both or neither) pin its route.",
    `timeout_seconds and inactivity_timeout_seconds (1–${MAX_JOB_SECONDS}) are set here only; update_job cannot change them.`,
    "max_usd caps what one run may spend (USD, > 0): a run that reaches it stops before its next model call and is recorded with status budget; update_job changes it.",
    "Delivery: none keeps the result (list_job_runs), local logs it, origin brings it back to this conversation, channel sends it to delivery_target (given alone, a target means channel).",
    "run_job_now tests a job at once; pause_job, resume_job, update_job and remove_job manage it.",
  ].join("\n"),
  async execute(args, ctx) {
    const trust = ctx.caller?.trust;
    if (trust !== "operator" && trust !== "guest") return { isError: true, content: TRUSTLESS };
    if (ctx.caller.jobId) {
      return {
        isError: true,
        content: `a scheduled run cannot create jobs (this run belongs to job ${ctx.caller.jobId}); say in the answer what should be scheduled instead`,
      };
    }
    return withJobs(ctx, async (service, _ops, jobs) => {
      const now = ctx.now();
      const defaults = service.defaults();
      const timezone = args.timezone ?? defaults.timezone;
      const { schedule, next } = scheduleFor(jobs, args.schedule, timezone, now);
      const expiresAt = args.expires_at === undefined ? null : parseExpiresAt(args.expires_at, now);
      if (expiresAt !== null && expiresAt <= next) {
        throw JobRefused(
          `expires_at ${args.expires_at} comes before the job's first run (${isoSeconds(next)}); it would never run`,
        );
      }
      const allowedTools = args.allowed_tools ? checkAllowedTools(args.allowed_tools, ctx) : [];
      if (args.skill_name) await checkSkill(args.skill_name, ctx);
      const pin = checkPin(args, service);
      const delivery = resolveDelivery(args, { fallbackMode: defaults.deliveryMode, origin: ctx.conversation });
      const job = service.store.create(
        {
          name: args.name,
          description: args.description ?? "",
          scheduleKind: schedule.kind,
          scheduleExpr: schedule.expr,
          timezone,
          expiresAt,
          taskPrompt: args.task,
          skillName: args.skill_name || null,
          provider: pin?.provider ?? null,
          model: pin?.model ?? null,
          timeoutSeconds: args.timeout_seconds ?? null,
          inactivityTimeoutSeconds: args.inactivity_timeout_seconds ?? null,
          allowedTools,
          maxUsd: args.max_usd ?? null,
          deliveryMode: delivery.mode,
          deliveryTarget: delivery.target,
        },
        { nextRunAt: next, trust, createdIn: ctx.conversation ?? NO_CONVERSATION },
      );
      service.changed();
      return `Scheduled "${job.name}" (id ${job.id}): ${jobs.describeSchedule(schedule)}; next run ${isoSeconds(next)} (${timezone}).\n${json(jobs.jobPayload(job))}`;
    });
  },
});

export const updateJob = defineTool({
  name: "update_job",
  deferrable: true,
  description: "Edit a scheduled job: task, schedule, timezone, skill, route pin, tools, max_usd or delivery.",
  policy: "job_write",
  readOnly: false,
  parameters: lazySchema(() =>
    jobArgs(
      "update_job",
      {
        job_id: JobId(),
        task: v.optional(Text(20_000)),
        schedule: v.optional(ScheduleArg()),
        timezone: v.optional(TimezoneArg()),
        description: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000))),
        skill_name: v.optional(v.pipe(SkillArg(), v.description('bind to this skill; "" unbinds'))),
        provider: v.optional(ProviderArg()),
        model: v.optional(ModelArg()),
        clear_route_pin: v.optional(
          v.pipe(v.boolean(), v.description("true: back to the default route (not with provider/model)")),
        ),
        delivery_mode: v.optional(DeliveryModeArg()),
        delivery_target: v.optional(DeliveryTargetArg()),
        allowed_tools: v.optional(AllowedToolsArg()),
        max_usd: v.optional(MaxUsdEdit()),
      },
      { timeout_seconds: CREATION_ONLY, inactivity_timeout_seconds: CREATION_ONLY },
    ),
  ),
  help: [
    "Omitted fields stay as they are: delivery is never retargeted unless delivery_mode or delivery_target is given; switching to none or local clears the target.",
    "A new schedule or timezone recomputes the next run and clears a disabled job's error; a paused or disabled job stays so until resume_job.",
    "provider+model re-pin the route (both together); clear_route_pin: true un-pins it. timeout_seconds and inactivity_timeout_seconds cannot be changed.",
    "max_usd sets what one run may spend (USD, > 0) and applies from the next model call; null removes the limit.",
  ].join("\n"),
  async execute(args, ctx) {
    const { job_id, clear_route_pin, ...fields } = args;
    if (!clear_route_pin && Object.values(fields).every((value) => value === undefined)) {
      return { isError: true, content: NOTHING_TO_UPDATE };
    }
    if (clear_route_pin && (args.provider !== undefined || args.model !== undefined)) {
      return {
        isError: true,
        content:
          "clear_route_pin cannot be combined with provider/model: clear_route_pin un-pins the route; to re-pin it, give provider and model alone",
      };
    }
    return withJobs(ctx, async (service, ops, jobs) => {
      const job = ops.find(actorOf(ctx), job_id);
      const patch: JobPatch = {};
      const changed: string[] = [];
      let next: number | undefined;
      if (args.task !== undefined) {
        patch.taskPrompt = args.task;
        changed.push("task");
      }
      if (args.description !== undefined) {
        patch.description = args.description;
        changed.push("description");
      }
      if (args.schedule !== undefined || args.timezone !== undefined) {
        const timezone = args.timezone ?? job.timezone;
        const parsed = scheduleFor(jobs, args.schedule ?? job.scheduleExpr, timezone, ctx.now());
        next = parsed.next;
        Object.assign(patch, {
          scheduleKind: parsed.schedule.kind,
          scheduleExpr: parsed.schedule.expr,
          timezone,
          nextRunAt: next,
          // A disabled job's error was its schedule's: the new one parses. It stays disabled until resumed.
          lastError: null,
        } satisfies JobPatch);
        changed.push(args.schedule !== undefined ? "schedule" : "timezone");
      }
      if (args.skill_name !== undefined) {
        if (args.skill_name) await checkSkill(args.skill_name, ctx);
        patch.skillName = args.skill_name || null;
        changed.push("skill_name");
      }
      if (clear_route_pin) {
        Object.assign(patch, { provider: null, model: null } satisfies JobPatch);
        changed.push("route pin cleared");
      } else {
        const pin = checkPin(args, service);
        if (pin) {
          Object.assign(patch, pin);
          changed.push("route pin");
        }
      }
      if (args.allowed_tools !== undefined) {
        patch.allowedTools = checkAllowedTools(args.allowed_tools, ctx);
        changed.push("allowed_tools");
      }
      if (args.max_usd !== undefined) {
        patch.maxUsd = args.max_usd;
        changed.push(args.max_usd === null ? "max_usd removed" : "max_usd");
      }
      if (args.delivery_mode !== undefined || args.delivery_target !== undefined) {
        const delivery = resolveDelivery(args, {
          fallbackMode: job.deliveryMode,
          origin: job.createdIn,
          current: { mode: job.deliveryMode, target: job.deliveryTarget },
        });
        Object.assign(patch, { deliveryMode: delivery.mode, deliveryTarget: delivery.target } satisfies JobPatch);
        changed.push("delivery");
      }
      const updated = service.store.update(job.id, patch)!;
      service.changed();
      const when = next === undefined ? "" : ` Next run ${isoSeconds(next)} (${updated.timezone}).`;
      const idle =
        updated.state === "scheduled" || updated.state === "running"
          ? ""
          : ` The job is ${updated.state}; resume_job puts it back on its schedule.`;
      return `Updated "${updated.name}" (id ${updated.id}): ${changed.join(", ")}.${when}${idle}\n${json(jobs.jobPayload(updated))}`;
    });
  },
});

export const listJobs = defineTool({
  name: "list_jobs",
  description: "List scheduled jobs: task, schedule, state, next run, delivery.",
  policy: "job_read",
  readOnly: true,
  parameters: lazySchema(() => jobArgs("list_jobs", { state: v.optional(v.picklist(JOB_STATES)) })),
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) => json({ jobs: ops.list(actorOf(ctx), args.state) }));
  },
});

export const pauseJob = defineTool({
  name: "pause_job",
  deferrable: true,
  description: "Pause a scheduled job until resume_job.",
  policy: "job_write",
  readOnly: false,
  parameters: lazySchema(() => JobIdOnly("pause_job")),
  help: "A run already in progress finishes. A paused job can still be edited with update_job.",
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) => {
      const job = ops.pause(actorOf(ctx), args.job_id);
      return `Paused "${job.name}" (id ${job.id}); resume_job puts it back on its schedule.\n${json(job)}`;
    });
  },
});

export const resumeJob = defineTool({
  name: "resume_job",
  deferrable: true,
  description: "Resume a paused (or fixed disabled) job; its next run counts from now.",
  policy: "job_write",
  readOnly: false,
  parameters: lazySchema(() => JobIdOnly("resume_job")),
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) => {
      const job = ops.resume(actorOf(ctx), args.job_id);
      const next = job.next_run_at ? `; next run ${job.next_run_at.replace(/\.\d{3}Z$/, "Z")} (${job.timezone})` : "";
      return `Resumed "${job.name}" (id ${job.id})${next}.\n${json(job)}`;
    });
  },
});

export const removeJob = defineTool({
  name: "remove_job",
  deferrable: true,
  description: "Delete a scheduled job and its runs (not while one is running).",
  policy: "job_write",
  readOnly: false,
  parameters: lazySchema(() => JobIdOnly("remove_job")),
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) => json(ops.remove(actorOf(ctx), args.job_id)));
  },
});

export const runJobNow = defineTool({
  name: "run_job_now",
  deferrable: true,
  description: "Run a scheduled job once now, out of band (trigger manual).",
  policy: "job_write",
  readOnly: false,
  // A one-shot CLI waits for the run, which keeps its own wall clock (timeout_seconds); this only backs it up.
  timeoutMs: (MAX_JOB_SECONDS + 60) * 1000,
  parameters: lazySchema(() => JobIdOnly("run_job_now")),
  help: 'The run is tagged trigger "manual" and leaves the schedule as it was; a one-time job is used up. Refused while the job is paused, disabled, expired or already running.',
  async execute(args, ctx) {
    return withJobs(ctx, async (_service, ops) => {
      const actor = actorOf(ctx);
      const job = ops.find(actor, args.job_id);
      const run = await ops.runNow(actor, job.id);
      const outcome =
        run.status === "queued" || run.status === "running"
          ? `started run ${run.id}; list_job_runs or get_job_run shows how it ends`
          : `run ${run.id} ended ${run.status}`;
      return `Ran "${job.name}" (id ${job.id}) now: ${outcome}.\n${json(run)}`;
    });
  },
});

export const listJobRuns = defineTool({
  name: "list_job_runs",
  deferrable: true,
  description: "A job's runs, newest first: status, trigger, timing, answer or error.",
  policy: "job_read",
  readOnly: true,
  parameters: lazySchema(() =>
    jobArgs("list_job_runs", {
      job_id: JobId(),
      status: v.optional(v.picklist(RUN_STATUSES)),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 20),
    }),
  ),
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) =>
      json({ runs: ops.runs(actorOf(ctx), args.job_id, { status: args.status, limit: args.limit }) }),
    );
  },
});

export const getJobRun = defineTool({
  name: "get_job_run",
  deferrable: true,
  description: "One job run in full: task and config as run, prompt, tokens, answer, error.",
  policy: "job_read",
  readOnly: true,
  parameters: lazySchema(() => jobArgs("get_job_run", { run_id: RunId() })),
  async execute(args, ctx) {
    return withJobs(ctx, (_service, ops) => json(ops.run(actorOf(ctx), args.run_id)));
  },
});

export const JOB_TOOLS: readonly AnyTool[] = [
  scheduleJob,
  updateJob,
  listJobs,
  pauseJob,
  resumeJob,
  removeJob,
  runJobNow,
  listJobRuns,
  getJobRun,
];
