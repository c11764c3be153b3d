import * as v from "valibot";
import { FermixError } from "../error.ts";
import { type JobActor, jobOperations } from "../jobs/job-operations.ts";
import { jobPayload } from "../jobs/job-payload.ts";
import type { JobState, RunStatus } from "../jobs/job-types.ts";
import { type JOB_STATES, JobListQuery, type RUN_STATUSES, RunListQuery } from "../protocol/job-queries.ts";
import type { JobAnswer, JobList, JobRemoved, RunAnswer, RunList } from "../protocol/schemas.ts";
import type { DaemonState } from "./daemon-state.ts";

// The protocol's lists and the store's types name the same states: a state added to one fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agree<T extends true> = T;
type _StatesAgree = [
  Agree<Same<(typeof JOB_STATES)[number], JobState>>,
  Agree<Same<(typeof RUN_STATUSES)[number], RunStatus>>,
];

/** `run` is one run (`GET /v1/runs/<id>`); `runNow` fires a job. */
export type JobRoute =
  | { op: "list" }
  | { op: "show" | "runs" | "run" | "runNow" | "pause" | "resume" | "remove"; id: string };

const ROUTES: ReadonlyArray<[method: string, pattern: string, op: JobRoute["op"]]> = [
  ["GET", "/v1/jobs", "list"],
  ["GET", "/v1/jobs/:id", "show"],
  ["DELETE", "/v1/jobs/:id", "remove"],
  ["GET", "/v1/jobs/:id/runs", "runs"],
  ["POST", "/v1/jobs/:id/run", "runNow"],
  ["POST", "/v1/jobs/:id/pause", "pause"],
  ["POST", "/v1/jobs/:id/resume", "resume"],
  ["GET", "/v1/runs/:id", "run"],
];

/**
 * The job route a request names, with the id from its path (percent-decoded); `method_not_allowed` when the
 * path is a job route's but the method is not; undefined when the path is none of them.
 */
export function matchJobRoute(method: string, pathname: string): JobRoute | "method_not_allowed" | undefined {
  let pathMatched = false;
  for (const [m, pattern, op] of ROUTES) {
    const params = matchPath(pattern, pathname);
    if (!params) continue;
    pathMatched = true;
    if (m === method) return (params.id === undefined ? { op } : { op, id: params.id }) as JobRoute;
  }
  return pathMatched ? "method_not_allowed" : undefined;
}

/** `/v1/jobs/:id/runs` against a path: the `:name` segments' values, or undefined when it does not fit. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = pathname.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (!w.startsWith(":")) {
      if (w !== g) return undefined;
      continue;
    }
    let value: string;
    try {
      value = decodeURIComponent(g);
    } catch {
      return undefined;
    }
    if (!value) return undefined;
    params[w.slice(1)] = value;
  }
  return params;
}

/**
 * A query string checked against its schema; the first problem is a 400 naming the parameter
 * (`limit: a whole number from 1 to 500`). A parameter given twice is refused rather than guessed at.
 */
export function parseQuery<S extends v.GenericSchema<Record<string, unknown>, unknown>>(
  schema: S,
  search: URLSearchParams,
): v.InferOutput<S> {
  const query: Record<string, string> = {};
  for (const [key, value] of search) {
    if (Object.hasOwn(query, key)) {
      throw new FermixError("invalid_request", `${key}: given more than once`, { field: key });
    }
    query[key] = value;
  }
  const parsed = v.safeParse(schema, query);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const field = issue.path?.map((p) => String(p.key)).join(".") || "query";
  const reason =
    issue.kind === "schema" && issue.type === "strict_object"
      ? "unknown query parameter"
      : issue.type === "picklist"
        ? `one of ${(issue.expected ?? "").replace(/[()"]/g, "").split(" | ").join(", ")} (got ${issue.received})`
        : issue.message;
  throw new FermixError("invalid_request", `${field}: ${reason}`, { field });
}

/** The CLI is the only client of the socket (0600, the owner's): it acts as the owner. */
const OWNER: JobActor = { trust: "operator" };

/** Serves a job route, or returns undefined when the request names none. */
export async function handleJobRoute(req: Request, url: URL, state: DaemonState): Promise<Response | undefined> {
  const route = matchJobRoute(req.method, url.pathname);
  if (route === undefined) return undefined;
  if (route === "method_not_allowed") {
    throw new FermixError("method_not_allowed", `${req.method} is not allowed on ${url.pathname}`);
  }
  const ops = jobOperations(await state.app.jobs(), Date.now);
  switch (route.op) {
    case "list": {
      const { state: jobState } = parseQuery(JobListQuery, url.searchParams);
      return Response.json({ jobs: ops.list(OWNER, jobState) } satisfies JobList);
    }
    case "show":
      return Response.json({ job: jobPayload(ops.find(OWNER, route.id)) } satisfies JobAnswer);
    case "runs": {
      const query = parseQuery(RunListQuery, url.searchParams);
      return Response.json({ runs: ops.runs(OWNER, route.id, query) } satisfies RunList);
    }
    case "run":
      return Response.json({ run: ops.run(OWNER, route.id) } satisfies RunAnswer);
    case "runNow":
      // Answered once the run is claimed: it goes on in the daemon, and `GET /v1/runs/<id>` follows it.
      return Response.json({ run: await ops.runNow(OWNER, route.id) } satisfies RunAnswer, { status: 202 });
    case "pause":
      return Response.json({ job: ops.pause(OWNER, route.id) } satisfies JobAnswer);
    case "resume":
      return Response.json({ job: ops.resume(OWNER, route.id) } satisfies JobAnswer);
    case "remove":
      return Response.json(ops.remove(OWNER, route.id) satisfies JobRemoved);
  }
}
