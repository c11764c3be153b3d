import * as v from "valibot";
import type { HarnessService } from "../../harness/harness-service-contract.ts";
import { type HarnessRun, RUN_STATUSES, VENDOR_LABEL } from "../../harness/harness-types.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import { type AnyTool, defineTool } from "../tool.ts";

const RunId = v.pipe(v.string(), v.regex(/^hr_[0-9a-f]{12}$/, "a coding run id like hr_0123456789ab"));

function summary(run: HarnessRun) {
  return {
    id: run.id,
    vendor: run.vendor,
    status: run.status,
    ...(run.failureTag ? { failure_tag: run.failureTag } : {}),
    cwd: run.cwd,
    started_at: new Date(run.startedAt).toISOString(),
    ...(run.completedAt ? { completed_at: new Date(run.completedAt).toISOString() } : {}),
    prompt: run.prompt.length > 160 ? `${run.prompt.slice(0, 159)}…` : run.prompt,
    ...(run.lastMilestone ? { last_milestone: run.lastMilestone } : {}),
    // A result that could not be delivered shows in the listing too, not only in get_coding_run.
    ...(run.delivery === "failed" || run.delivery === "retrying" ? { delivery: run.delivery } : {}),
  };
}

function detail(run: HarnessRun) {
  return {
    ...summary(run),
    prompt: run.prompt,
    argv: run.argv,
    ...(run.vendorSession ? { vendor_session: run.vendorSession } : {}),
    ...(run.finalMessage !== undefined ? { final_message: run.finalMessage } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.exitCode !== undefined ? { exit_code: run.exitCode } : {}),
    events: run.events,
    framing_errors: run.framingErrors,
    ...(run.usage !== undefined ? { usage: run.usage } : {}),
    delivery: run.delivery,
    ...(run.deliveryError ? { delivery_error: run.deliveryError } : {}),
    ...(run.deliveryAttempts.length
      ? {
          delivery_attempts: run.deliveryAttempts.map((a) => ({
            at: new Date(a.at).toISOString(),
            status: a.status,
            ...(a.error ? { error: a.error } : {}),
          })),
        }
      : {}),
    ...(run.deliveryRetryAt ? { next_delivery_at: new Date(run.deliveryRetryAt).toISOString() } : {}),
  };
}

/** list_coding_runs, get_coding_run, cancel_coding_run: the run history the harness keeps in memory.db. */
export function codingRunTools(deps: { service: () => Promise<HarnessService> }): AnyTool[] {
  const list = defineTool({
    name: "list_coding_runs",
    description: "List recent coding-harness runs, newest first, with their status.",
    parameters: lazySchema(() =>
      v.object({
        status: v.optional(v.picklist(RUN_STATUSES)),
        limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
      }),
    ),
    policy: "job_read",
    readOnly: true,
    deferrable: true,
    async execute(args) {
      const runs = (await deps.service()).list({ status: args.status, limit: args.limit ?? 20 });
      if (!runs.length) return "No coding runs.";
      return `${runs.length} coding runs:\n${JSON.stringify(runs.map(summary), null, 2)}`;
    },
  });
  const get = defineTool({
    name: "get_coding_run",
    description: "Read one coding-harness run in full: status, progress, the vendor's final message, errors, usage.",
    parameters: lazySchema(() => v.object({ run_id: RunId })),
    policy: "job_read",
    readOnly: true,
    deferrable: true,
    async execute(args) {
      const run = (await deps.service()).get(args.run_id);
      if (!run) return { isError: true, content: `No coding run ${args.run_id}; list_coding_runs shows the runs.` };
      return JSON.stringify(detail(run), null, 2);
    },
  });
  const cancel = defineTool({
    name: "cancel_coding_run",
    description: "Stop an active coding-harness run (its whole process tree ends).",
    parameters: lazySchema(() => v.object({ run_id: RunId })),
    policy: "exec",
    readOnly: false,
    deferrable: true,
    timeoutMs: 30_000,
    async execute(args) {
      const service = await deps.service();
      const before = service.get(args.run_id);
      if (!before) return { isError: true, content: `No coding run ${args.run_id}; list_coding_runs shows the runs.` };
      const run = await service.cancel(args.run_id);
      if (run?.status !== "cancelled") {
        return `Coding run ${args.run_id} (${VENDOR_LABEL[before.vendor]}) is not running: it is ${run?.status ?? before.status}.`;
      }
      return `Cancelled coding run ${run.id} (${VENDOR_LABEL[run.vendor]}); its processes are gone.`;
    },
  });
  return [list, get, cancel];
}
