import { describeSchedule, parseSchedule } from "../jobs/schedule.ts";
import type { JobPayload, RunPayload } from "../protocol/schemas.ts";

/*
 * `fermix jobs` as text: listings are tab-separated, one job or run a line, `-` for nothing; `show` is
 * `key: value` lines. What scripts need is in --json; these are for people.
 */

/** "every 15 minutes", "cron 0 8 * * * (Europe/Berlin)"; a schedule that no longer parses is shown as stored. */
export function scheduleText(job: Pick<JobPayload, "schedule_kind" | "schedule_expr" | "timezone">): string {
  const parsed = parseSchedule(job.schedule_expr, job.timezone);
  return parsed.ok ? describeSchedule(parsed.schedule) : `${job.schedule_kind} ${job.schedule_expr}`;
}

/** id, name, state, schedule, next run, last status. */
export function renderJobList(jobs: readonly JobPayload[]): string {
  if (!jobs.length) return "no scheduled jobs\n";
  const rows = jobs.map((j) => [j.id, j.name, j.state, scheduleText(j), at(j.next_run_at), j.last_status ?? "-"]);
  return rows.map((r) => `${r.map(cell).join("\t")}\n`).join("");
}

export function renderJob(job: JobPayload): string {
  const lines: Array<[string, string]> = [
    ["id", job.id],
    ["name", job.name],
    ...(job.description ? [["description", job.description] as [string, string]] : []),
    ["state", job.state],
    ["schedule", scheduleText(job)],
    ["next run", at(job.next_run_at)],
    ["expires", at(job.expires_at)],
    ["task", job.task_prompt],
    ["skill", job.skill_name ?? "-"],
    ["model", job.provider && job.model ? `${job.provider}/${job.model}` : "-"],
    ["tools", job.allowed_tools.length ? job.allowed_tools.join(", ") : "not narrowed"],
    ["delivery", deliveryText(job)],
    ["last run", at(job.last_run_at)],
    ["last status", job.last_status ?? "-"],
    ["last error", job.last_error ?? "-"],
    ["created", `${at(job.created_at)}${job.created_by_trust ? ` (by ${job.created_by_trust})` : ""}`],
  ];
  // A task of several lines keeps them, indented under its key.
  return lines.map(([key, value]) => `${key}: ${value.replace(/\r?\n/g, "\n  ")}\n`).join("");
}

/** id, trigger, status, started, duration, then the answer (or the error) on one line. */
export function renderRuns(runs: readonly RunPayload[]): string {
  if (!runs.length) return "no runs\n";
  return runs
    .map((r) => {
      const outcome = r.status === "ok" ? r.final_response : (r.error ?? r.final_response);
      const row = [r.id, r.trigger, r.status, at(r.started_at), duration(r), oneLine(outcome ?? "-")];
      return `${row.map(cell).join("\t")}\n`;
    })
    .join("");
}

function deliveryText(job: JobPayload): string {
  const target = job.delivery_target;
  if (job.delivery_mode !== "channel" || !target) return job.delivery_mode;
  return `channel ${target.platform}:${target.chat_id}${target.thread ? ` (thread ${target.thread})` : ""}`;
}

/** An instant as the payload gives it, without the milliseconds when there are none; `-` for none. */
export function at(iso: string | null | undefined): string {
  return iso ? iso.replace(/\.000Z$/, "Z") : "-";
}

/** 850ms, 4.2s, 3m12s, 1h5m; `-` while the run has not finished. */
export function duration(run: Pick<RunPayload, "started_at" | "claimed_at" | "completed_at">): string {
  const from = run.started_at ?? run.claimed_at;
  if (!run.completed_at || !from) return "-";
  const ms = Date.parse(run.completed_at) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return "-";
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

const SUMMARY_CHARS = 100;

/** Whitespace (newlines, tabs) folded to single spaces, cut at SUMMARY_CHARS with an ellipsis. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1).trimEnd()}…` : flat || "-";
}

/** A tab or newline inside a field (a job's name) would break the columns. */
function cell(text: string): string {
  return text.replace(/[\t\r\n]+/g, " ");
}
