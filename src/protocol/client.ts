import { createParser } from "eventsource-parser";
import * as v from "valibot";
import { FermixError, fromSerialized } from "../error.ts";
import { unixFetch } from "../runtime/http.ts";
import { MAX_ASK_BODY_BYTES } from "./ask-parts.ts";
import type { DaemonClient } from "./daemon-client-contract.ts";
import {
  type ApprovalRequest,
  AskDone,
  AskNotice,
  type AskRequest,
  AskText,
  ChannelsReport,
  ErrorBody,
  Health,
  Hello,
  JobAnswer,
  JobList,
  JobRemoved,
  PluginsReport,
  PROTOCOL_HEADER,
  PROTOCOL_VERSION,
  RunAnswer,
  RunList,
  SkillReloadReport,
  Status,
} from "./schemas.ts";

/** Raised when nothing answers on the socket; the CLI maps it to exit 3. */
export const NOT_RUNNING = "not_running";

/**
 * The typed client for the daemon's socket. It imports only the protocol, so CLI verbs that talk to
 * the daemon stay fast to start.
 */
export function createDaemonClient(socketPath: string): DaemonClient {
  const base = "http://fermix";
  const socketFetch = unixFetch(socketPath);

  async function send(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      response = await socketFetch(`${base}${path}`, {
        ...init,
        headers: { [PROTOCOL_HEADER]: String(PROTOCOL_VERSION), ...(init.headers as Record<string, string>) },
      });
    } catch (err) {
      if ((err as Error)?.name === "AbortError") throw err;
      throw new FermixError(NOT_RUNNING, "not running", { socket: socketPath });
    }
    if (!response.ok && !response.headers.get("content-type")?.includes("text/event-stream")) {
      throw await errorFrom(response);
    }
    return response;
  }

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

    async ask(
      request: AskRequest,
      opts: {
        signal?: AbortSignal;
        onText?: (delta: string) => void;
        onNotice?: (text: string, approval?: ApprovalRequest) => void;
      } = {},
    ): Promise<AskDone> {
      const response = await send("/v1/ask", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(request),
        signal: opts.signal,
      });
      let done: AskDone | undefined;
      let failure: FermixError | undefined;
      const parser = createParser({
        onEvent(event) {
          const data = JSON.parse(event.data);
          if (event.event === "text") opts.onText?.(v.parse(AskText, data).delta);
          else if (event.event === "notice") {
            const notice = v.parse(AskNotice, data);
            opts.onNotice?.(notice.text, notice.approval);
          } else if (event.event === "done") done = v.parse(AskDone, data);
          else if (event.event === "error") failure = fromSerialized(v.parse(ErrorBody, data));
        },
      });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      while (true) {
        const { done: eof, value } = await reader.read();
        if (eof) break;
        parser.feed(value);
      }
      if (failure) throw failure;
      if (!done) throw new FermixError("protocol_error", "the daemon closed the answer before it finished");
      return done;
    },
  };
}

/** `?a=1&b=x` from the parameters that are set; empty when none is. */
function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

async function errorFrom(response: Response): Promise<FermixError> {
  // The server refuses an oversized body before any route sees it, so the answer carries no error body of ours.
  if (response.status === 413) {
    return new FermixError(
      "request_too_large",
      `the request is larger than the daemon takes (${Math.floor(MAX_ASK_BODY_BYTES / 1024 / 1024)} MiB); attach fewer or smaller files`,
      { limit: MAX_ASK_BODY_BYTES },
    );
  }
  const body = await response.json().catch(() => undefined);
  const parsed = v.safeParse(v.object({ error: ErrorBody }), body);
  if (parsed.success) return fromSerialized(parsed.output.error);
  return new FermixError("protocol_error", `the daemon answered HTTP ${response.status}`);
}
