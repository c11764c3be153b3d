import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { matchJobRoute, matchPath, parseQuery } from "../../src/daemon/job-routes.ts";
import { startDaemon } from "../../src/daemon/server.ts";
import type { JobDraft } from "../../src/jobs/job-types.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { JobListQuery, RunListQuery } from "../../src/protocol/schemas.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { draft } from "../jobs/_fixture.ts";

const defer = cleanupAfterEach();

describe("job route matching", () => {
  test("each route by method and path, with the id decoded", () => {
    expect(matchJobRoute("GET", "/v1/jobs")).toEqual({ op: "list" });
    expect(matchJobRoute("GET", "/v1/jobs/digest_k3x9p")).toEqual({ op: "show", id: "digest_k3x9p" });
    expect(matchJobRoute("DELETE", "/v1/jobs/digest_k3x9p")).toEqual({ op: "remove", id: "digest_k3x9p" });
    expect(matchJobRoute("GET", "/v1/jobs/a%20b/runs")).toEqual({ op: "runs", id: "a b" });
    expect(matchJobRoute("POST", "/v1/jobs/j/run")).toEqual({ op: "runNow", id: "j" });
    expect(matchJobRoute("POST", "/v1/jobs/j/pause")).toEqual({ op: "pause", id: "j" });
    expect(matchJobRoute("POST", "/v1/jobs/j/resume")).toEqual({ op: "resume", id: "j" });
    expect(matchJobRoute("GET", "/v1/runs/run_ab12")).toEqual({ op: "run", id: "run_ab12" });
  });

  test("a known path with another method is method_not_allowed; other paths are none of them", () => {
    expect(matchJobRoute("PUT", "/v1/jobs/j")).toBe("method_not_allowed");
    expect(matchJobRoute("GET", "/v1/jobs/j/pause")).toBe("method_not_allowed");
    expect(matchJobRoute("GET", "/v1/jobs/j/frob")).toBeUndefined();
    expect(matchJobRoute("GET", "/v1/jobs/")).toBeUndefined();
    expect(matchJobRoute("GET", "/v1/jobs/j/runs/x")).toBeUndefined();
    expect(matchJobRoute("GET", "/v1/runs")).toBeUndefined();
  });

  test("matchPath: literal segments must match, a bad escape or an empty id fits nothing", () => {
    expect(matchPath("/v1/jobs/:id/runs", "/v1/jobs/x/runs")).toEqual({ id: "x" });
    expect(matchPath("/v1/jobs/:id/runs", "/v1/jobz/x/runs")).toBeUndefined();
    expect(matchPath("/v1/jobs/:id", "/v1/jobs/%E0%A4%A")).toBeUndefined();
    expect(matchPath("/v1/jobs/:id", "/v1/jobs/")).toBeUndefined();
  });
});

describe("job route queries", () => {
  const q = (text: string) => new URLSearchParams(text);
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return { code: (err as any).code, message: (err as Error).message, field: (err as any).data.field };
    }
    throw new Error("not refused");
  };

  test("valid queries parse, limit becomes a number", () => {
    expect(parseQuery(JobListQuery, q(""))).toEqual({});
    expect(parseQuery(JobListQuery, q("state=paused"))).toEqual({ state: "paused" });
    expect(parseQuery(RunListQuery, q("status=ok&limit=5"))).toEqual({ status: "ok", limit: 5 });
  });

  test("a bad parameter is an invalid_request naming it", () => {
    expect(refusal(() => parseQuery(JobListQuery, q("state=nope")))).toEqual({
      code: "invalid_request",
      message: 'state: one of scheduled, running, paused, disabled, completed (got "nope")',
      field: "state",
    });
    for (const limit of ["0", "501", "x", "1.5", "-2", ""]) {
      expect(refusal(() => parseQuery(RunListQuery, q(`limit=${limit}`)))).toEqual({
        code: "invalid_request",
        message: "limit: a whole number from 1 to 500",
        field: "limit",
      });
    }
    expect(refusal(() => parseQuery(RunListQuery, q("colour=red")))).toMatchObject({
      message: "colour: unknown query parameter",
      field: "colour",
    });
    expect(refusal(() => parseQuery(RunListQuery, q("limit=1&limit=2")))).toMatchObject({
      message: "limit: given more than once",
    });
  });
});

const DRAFT: JobDraft = draft({ name: "digest", taskPrompt: "Summarise.", deliveryMode: "none" });
const FAR = Date.parse("2099-01-01T00:00:00Z");

async function daemonWithJobs() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const app = await createApp({ env: { FERMIX_HOME: h.home } });
  const daemon = await startDaemon(app);
  defer(() => daemon.stop());
  const { store } = await app.jobs();
  const meta = { nextRunAt: FAR, trust: "operator" as const, createdIn: { channel: "cli", chat: "default" } };
  const job = store.create(DRAFT, meta);
  const done = store.create({ ...DRAFT, name: "done" }, meta);
  store.update(done.id, { state: "completed", nextRunAt: null });
  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`http://fermix${path}`, { ...init, unix: daemon.socket } as RequestInit);
  return { client: createDaemonClient(daemon.socket), raw, job, done };
}

describe("job routes in a daemon", () => {
  test("the typed client lists, shows, pauses, resumes and removes", async () => {
    const { client, job, done } = await daemonWithJobs();
    expect((await client.jobs()).jobs.map((j) => j.id).sort()).toEqual([job.id, done.id].sort());
    expect((await client.jobs({ state: "completed" })).jobs.map((j) => j.id)).toEqual([done.id]);
    expect((await client.job(job.id)).job).toMatchObject({ id: job.id, name: "digest", state: "scheduled" });
    expect((await client.jobRuns(job.id, { limit: 5 })).runs).toEqual([]);
    expect((await client.pauseJob(job.id)).job.state).toBe("paused");
    expect((await client.resumeJob(job.id)).job.state).toBe("scheduled");
    expect(await client.removeJob(job.id)).toEqual({ removed: true, job_id: job.id });
    expect((await client.jobs()).jobs.map((j) => j.id)).toEqual([done.id]);
  });

  test("errors map to 404, 409, 400 and 405 with their codes", async () => {
    const { raw, job, done } = await daemonWithJobs();
    const answer = async (path: string, init?: RequestInit) => {
      const r = await raw(path, init);
      return { status: r.status, code: ((await r.json()) as any).error?.code };
    };
    expect(await answer("/v1/jobs/nope")).toEqual({ status: 404, code: "job_not_found" });
    expect(await answer("/v1/jobs/nope/runs")).toEqual({ status: 404, code: "job_not_found" });
    expect(await answer("/v1/runs/run_nope")).toEqual({ status: 404, code: "run_not_found" });
    expect(await answer(`/v1/jobs/${done.id}/pause`, { method: "POST" })).toEqual({
      status: 409,
      code: "job_not_runnable",
    });
    expect(await answer(`/v1/jobs/${done.id}/run`, { method: "POST" })).toEqual({
      status: 409,
      code: "job_not_runnable",
    });
    expect(await answer(`/v1/jobs/${job.id}/runs?limit=0`)).toEqual({ status: 400, code: "invalid_request" });
    expect(await answer("/v1/jobs?state=sleeping")).toEqual({ status: 400, code: "invalid_request" });
    expect(await answer(`/v1/jobs/${job.id}`, { method: "PATCH" })).toEqual({
      status: 405,
      code: "method_not_allowed",
    });
    expect(await answer("/v1/jobz")).toEqual({ status: 404, code: "not_found" });
  });
});
