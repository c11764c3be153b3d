import * as v from "valibot";
import { FermixError } from "../error.ts";
import { askOverSocket } from "./ask-client.ts";
import type { DaemonClient } from "./daemon-client-contract.ts";
import {
  ChannelsReport,
  Health,
  Hello,
  JobAnswer,
  JobList,
  JobRemoved,
  PluginsReport,
  RunAnswer,
  RunList,
  SkillReloadReport,
  Status,
} from "./schemas.ts";
import { socketSender } from "./socket-send.ts";

/** Raised when nothing answers on the socket; the CLI maps it to exit 3. */
export { NOT_RUNNING } from "./socket-send.ts";

/**
 * The typed client for the daemon's socket. It imports only the protocol, so CLI verbs that talk to
 * the daemon stay fast to start.
 */
export function createDaemonClient(socketPath: string): DaemonClient {
  const send = socketSender(socketPath);

  async function json<T>(schema: v.GenericSchema<unknown, T>, path: string, init?: RequestInit): Promise<T> {
    const response = await send(path, init);
    const parsed = v.safeParse(schema, await response.json().catch(() => undefined));
    if (!parsed.success) throw new FermixError("protocol_error", `the daemon sent an unexpected answer to ${path}`);
    return parsed.output;
  }

  return {
    hello: () => json(Hello, "/v1/hello"),
    health: () => json(Health, "/v1/health"),
    status: () => json(Status, "/v1/status"),
    shutdown: () => send("/v1/shutdown", { method: "POST" }).then(() => undefined),
    reloadSkills: () => json(SkillReloadReport, "/v1/skills/reload", { method: "POST" }),
    forgetAuth: (profile: string) =>
      send("/v1/auth/forget", {
        method: "POST",
        body: JSON.stringify({ profile }),
        headers: { "content-type": "application/json" },
        signal: AbortSignal.timeout(5000),
      }).then(() => undefined),
    jobsChanged: () =>
      send("/v1/jobs/changed", { method: "POST", signal: AbortSignal.timeout(2000) }).then(() => undefined),
    jobs: (opts: { state?: string } = {}) => json(JobList, `/v1/jobs${query({ state: opts.state })}`),
    job: (id: string) => json(JobAnswer, `/v1/jobs/${encodeURIComponent(id)}`),
    jobRuns: (id: string, opts: { status?: string; limit?: number } = {}) =>
      json(RunList, `/v1/jobs/${encodeURIComponent(id)}/runs${query({ status: opts.status, limit: opts.limit })}`),
    jobRun: (runId: string) => json(RunAnswer, `/v1/runs/${encodeURIComponent(runId)}`),
    runJob: (id: string) => json(RunAnswer, `/v1/jobs/${encodeURIComponent(id)}/run`, { method: "POST" }),
    pauseJob: (id: string) => json(JobAnswer, `/v1/jobs/${encodeURIComponent(id)}/pause`, { method: "POST" }),
    resumeJob: (id: string) => json(JobAnswer, `/v1/jobs/${encodeURIComponent(id)}/resume`, { method: "POST" }),
    removeJob: (id: string) => json(JobRemoved, `/v1/jobs/${encodeURIComponent(id)}`, { method: "DELETE" }),
    plugins: () => json(PluginsReport, "/v1/plugins"),
    channels: () => json(ChannelsReport, "/v1/channels"),
    reloadPlugins: (opts: { devLocal?: boolean } = {}) =>
      json(PluginsReport, `/v1/plugins/reload${opts.devLocal ? "?dev_local=1" : ""}`, { method: "POST" }),

    ask: (request, opts) => askOverSocket(send, request, opts),
  };
}

/** `?a=1&b=x` from the parameters that are set; empty when none is. */
function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}
