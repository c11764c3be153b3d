import { readCappedText } from "../../net/read-capped.ts";
import type { ExportSpan } from "./span-assembler.ts";

/**
 * Opik's REST API: sessions become traces (POST /v1/private/traces/batch), everything under them spans
 * (POST /v1/private/spans/batch, `parent_span_id` naming an enclosing span); both answer 204. Opik Cloud takes
 * the API key as the bare `authorization` header and the workspace as `Comet-Workspace`; a local server needs neither.
 */
export type OpikTarget = { baseUrl: string; project: string; apiKey?: string; workspace?: string };

export const OPIK_DEFAULT_URL = "http://localhost:5173/api";
export const OPIK_DEFAULT_PROJECT = "fermix";

export function createOpikSender(target: OpikTarget, fetchFn: typeof fetch) {
  const root = target.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(target.apiKey ? { authorization: target.apiKey } : {}),
    ...(target.workspace ? { "Comet-Workspace": target.workspace } : {}),
  };
  const post = async (path: string, body: unknown, signal: AbortSignal) => {
    const res = await fetchFn(`${root}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal });
    if (!res.ok) throw new Error(`Opik answered ${res.status} to ${path}: ${await errorText(res)}`);
    await res.body?.cancel();
  };
  return {
    async send(batch: ExportSpan[], signal: AbortSignal): Promise<void> {
      const traces = batch.filter((s) => s.root).map((s) => opikTrace(s, target.project));
      const spans = batch.filter((s) => !s.root).map((s) => opikSpan(s, target.project));
      // Traces first, so a span's trace exists when the UI reads it (Opik accepts either order).
      if (traces.length) await post("/v1/private/traces/batch", { traces }, signal);
      if (spans.length) await post("/v1/private/spans/batch", { spans }, signal);
    },
    /** `doctor --full`: one authenticated read that answers 200 when the URL, key and workspace are right. */
    async probe(signal: AbortSignal): Promise<void> {
      const res = await fetchFn(`${root}/v1/private/projects?size=1`, { headers, signal });
      if (!res.ok) throw new Error(`Opik answered ${res.status}: ${await errorText(res)}`);
      await res.body?.cancel();
    },
  };
}

function opikTrace(s: ExportSpan, project: string) {
  return {
    id: s.traceId,
    project_name: project,
    name: s.name,
    start_time: iso(s.startMs),
    end_time: iso(s.endMs),
    ...(s.input !== undefined ? { input: jsonObject(s.input, "input") } : {}),
    ...(s.output !== undefined ? { output: jsonObject(s.output, "output") } : {}),
    metadata: { session_id: s.sessionId, ...s.attributes },
    tags: ["fermix"],
    ...(s.error ? { error_info: errorInfo(s.error) } : {}),
  };
}

function opikSpan(s: ExportSpan, project: string) {
  return {
    id: s.id,
    trace_id: s.traceId,
    // Directly under a session's root, the trace itself is the parent: no parent span.
    ...(s.parentId && !s.parentIsRoot ? { parent_span_id: s.parentId } : {}),
    project_name: project,
    name: s.name,
    type: s.type,
    start_time: iso(s.startMs),
    end_time: iso(s.endMs),
    ...(s.input !== undefined ? { input: jsonObject(s.input, "input") } : {}),
    ...(s.output !== undefined ? { output: jsonObject(s.output, "output") } : {}),
    metadata: { session_id: s.sessionId, ...s.attributes },
    ...(s.model ? { model: s.model } : {}),
    ...(s.provider ? { provider: s.provider } : {}),
    ...(s.usage ? { usage: usage(s.usage) } : {}),
    ...(s.error ? { error_info: errorInfo(s.error) } : {}),
  };
}

function usage(u: { input?: number; output?: number }): Record<string, number> {
  const out: Record<string, number> = {};
  if (u.input !== undefined) out.prompt_tokens = u.input;
  if (u.output !== undefined) out.completion_tokens = u.output;
  if (u.input !== undefined && u.output !== undefined) out.total_tokens = u.input + u.output;
  return out;
}

function errorInfo(e: { type: string; message: string }) {
  return { exception_type: e.type, message: e.message, traceback: "" };
}

/** Opik's input/output/metadata are JSON objects: anything else is wrapped under its field's name. */
function jsonObject(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? value : { [key]: value };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

async function errorText(res: Response): Promise<string> {
  // An error body is only a detail: read up to 64 KiB (readCappedText's cap), 300 characters shown.
  const text = (await readCappedText(res)).trim();
  return text.slice(0, 300) || res.statusText || "no body";
}
