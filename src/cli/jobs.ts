import type { CommandMeta } from "citty";
import { FermixError } from "../error.ts";
import type { DaemonClient } from "../protocol/daemon-client-contract.ts";
import { JOB_STATES, RUN_STATUSES } from "../protocol/job-queries.ts";
import type { LocalJobs } from "./_jobs-local.ts";
import { defineCommand } from "./command.ts";
import { connectDaemon, ifDaemonRuns } from "./daemon-client.ts";
import { UsageError } from "./exit.ts";
import { answerQuery } from "./query.ts";

const JSON_ARG = { type: "boolean", description: "print the typed JSON envelope" } as const;
const JOB_ID = {
  type: "positional",
  required: true,
  valueHint: "ID",
  description: "the job (fermix jobs list)",
} as const;
const MAX_RUNS = 500;
// Mutable arrays: citty's enum type wants string[], and a readonly tuple there loses the args' types.
const JOB_STATE_NAMES: string[] = [...JOB_STATES];
const RUN_STATUS_NAMES: string[] = [...RUN_STATUSES];

export default defineCommand({
  meta: {
    name: "jobs",
    description: "List, inspect, run, pause, resume and remove scheduled jobs",
    details:
      'The agent creates jobs when asked ("every weekday at 8, summarise …"). list, show and runs read memory.db when no daemon runs; run, pause, resume and remove need the daemon (exit 3 when it is down). Plain output is tab-separated; --json gives the typed envelope.',
    examples: [
      "fermix jobs list",
      "fermix jobs runs morning_digest_k3x9p",
      "fermix jobs run morning_digest_k3x9p",
      "fermix jobs list --json | jq -r '.result.jobs[].id'",
    ],
  },
  default: "list",
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "List the jobs: id, name, state, schedule, next run, last status" },
      args: {
        state: { type: "enum", options: JOB_STATE_NAMES, valueHint: "STATE", description: "only jobs in STATE" },
        json: JSON_ARG,
      },
      run: ({ args }) => {
        const state = args.state as (typeof JOB_STATES)[number] | undefined;
        return answer(args.json, {
          remote: (client) => client.jobs({ state }),
          local: (db) => ({ jobs: db.list(state) }),
          render: (text, { jobs }) => text.renderJobList(jobs),
        });
      },
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show one job: its schedule, task, delivery and last outcome" },
      args: { id: JOB_ID, json: JSON_ARG },
      run: ({ args }) =>
        answer(args.json, {
          remote: (client) => client.job(args.id),
          local: (db) => ({ job: db.job(args.id) }),
          render: (text, { job }) => text.renderJob(job),
        }),
    }),
    runs: defineCommand({
      meta: {
        name: "runs",
        description: "List a job's runs, newest first: trigger, status, start, duration, answer or error",
      },
      args: {
        id: JOB_ID,
        status: { type: "enum", options: RUN_STATUS_NAMES, valueHint: "STATUS", description: "only runs in STATUS" },
        limit: { type: "string", valueHint: "N", description: `at most N runs (default 20, at most ${MAX_RUNS})` },
        json: JSON_ARG,
      },
      run: ({ args }) => {
        const status = args.status as (typeof RUN_STATUSES)[number] | undefined;
        const limit = runLimit(args.limit);
        return answer(args.json, {
          remote: (client) => client.jobRuns(args.id, { status, limit }),
          local: (db) => ({ runs: db.runs(args.id, { status, limit }) }),
          render: (text, { runs }) => text.renderRuns(runs),
        });
      },
    }),
    run: change(
      { name: "run", description: "Run a job now (its schedule is untouched); answers once the run has started" },
      (client, id) => client.runJob(id),
      ({ run }) => `started ${run.id} (job ${run.job_id})\n`,
    ),
    pause: change(
      { name: "pause", description: "Take a job off the clock until resumed (a run in progress finishes)" },
      (client, id) => client.pauseJob(id),
      ({ job }) => `paused ${job.id}\n`,
    ),
    resume: change(
      { name: "resume", description: "Put a paused job back on the clock from now" },
      (client, id) => client.resumeJob(id),
      ({ job }) => `resumed ${job.id} (next run ${(job.next_run_at ?? "-").replace(/\.000Z$/, "Z")})\n`,
    ),
    remove: change(
      { name: "remove", description: "Delete a job and its runs" },
      (client, id) => client.removeJob(id),
      ({ job_id }) => `removed ${job_id}\n`,
    ),
  },
});

/** A subcommand that changes a job: only the daemon does that (it runs the clock), so it must be up (exit 3). */
function change<T>(
  meta: CommandMeta & { name: string },
  send: (client: DaemonClient, id: string) => Promise<T>,
  render: (result: T) => string,
) {
  return defineCommand({
    meta,
    args: { id: JOB_ID, json: JSON_ARG },
    run: ({ args }) =>
      answerQuery({
        json: args.json === true,
        query: () => send(connectDaemon().client, args.id).catch(forPeople),
        render,
      }),
  });
}

type Read<T> = {
  remote: (client: DaemonClient) => Promise<T>;
  local: (db: LocalJobs) => T;
  render: (text: Renderer, result: T) => string;
};
type Renderer = typeof import("./_jobs-render.ts");

/**
 * A read: the running daemon's view when one runs (the states it holds), else memory.db read directly (the
 * owner sees every job either way). A daemon older than `fermix jobs` has no such route; the database answers.
 */
async function answer<T>(json: boolean | undefined, how: Read<T>): Promise<number> {
  // The schedule describer and the columns load only for text.
  const text = json === true ? undefined : await import("./_jobs-render.ts");
  return answerQuery({
    json: json === true,
    query: () => read(how).catch(forPeople),
    render: (result) => how.render(text!, result),
  });
}

async function read<T>(how: Read<T>): Promise<T> {
  try {
    const answer = await ifDaemonRuns(how.remote);
    if (answer !== undefined) return answer;
  } catch (err) {
    if (!(err instanceof FermixError && err.code === "not_found" && err.message.startsWith("no route "))) throw err;
  }
  const { withJobDatabase } = await import("./_jobs-local.ts");
  return withJobDatabase(how.local);
}

/** The operations' sentences point a model at its tools; on the command line the verbs say it. */
function forPeople(err: unknown): never {
  if (err instanceof FermixError && err.code === "job_not_found") {
    throw new FermixError(err.code, `no job "${err.data.job_id}"; fermix jobs list shows the jobs`, err.data);
  }
  if (err instanceof FermixError && err.code === "run_not_found") {
    throw new FermixError(err.code, `no run "${err.data.run_id}"`, err.data);
  }
  throw err;
}

function runLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= MAX_RUNS)) throw UsageError(`jobs runs: --limit takes a whole number from 1 to ${MAX_RUNS}`);
  return n;
}
