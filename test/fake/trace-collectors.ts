/**
 * Fake trace backends on 127.0.0.1, as strict as the real ones about what they read:
 * - Opik: POST <base>/v1/private/traces/batch {traces: Trace_Write[]} and /spans/batch {spans: Span_Write[]},
 *   1 to 1000 items, ids UUID v7, start_time required, span type general|tool|llm|guardrail; 204 back. With an
 *   API key configured, `authorization: <key>` and `Comet-Workspace` are required (401 as Opik Cloud answers).
 *   Validation failures are 422 `{ "errors": [...] }`. GET <base>/v1/private/projects answers a page.
 * - OTLP/HTTP JSON: POST /v1/traces, ExportTraceServiceRequest with hex ids and nanosecond strings; 200 `{}`;
 *   a malformed request is 400 with a google.rpc.Status body.
 * `hang: true` accepts every request and never answers (until close).
 */
export type Recorded = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  /** The status the fake answered (absent while a hung request is held). */
  status?: number;
};

export type FakeCollector = {
  baseUrl: string;
  requests: Recorded[];
  /** Resolves once a recorded request satisfies `test` (the safety deadline is the test's own). */
  waitFor(test: (requests: Recorded[]) => boolean): Promise<void>;
  close(): Promise<void>;
};

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SPAN_TYPES = ["general", "tool", "llm", "guardrail"];

type Validate = (req: Recorded) => Response;

async function startCollector(handle: Validate, opts: { hang?: boolean; base: string }): Promise<FakeCollector> {
  const requests: Recorded[] = [];
  const waiters = new Set<{ test: (r: Recorded[]) => boolean; resolve: () => void }>();
  const parked = new Set<() => void>();
  let closed = false;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: any;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = { malformed: text };
      }
      const headers: Record<string, string> = {};
      request.headers.forEach((v, k) => {
        headers[k] = v;
      });
      const rec: Recorded = { method: request.method, path: url.pathname + url.search, headers, body };
      requests.push(rec);
      for (const w of waiters) {
        if (w.test(requests)) {
          waiters.delete(w);
          w.resolve();
        }
      }
      if (opts.hang) {
        await new Promise<void>((resolve) => parked.add(resolve));
        return new Response(null, { status: 503 });
      }
      const response = handle(rec);
      rec.status = response.status;
      return response;
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}${opts.base}`,
    requests,
    waitFor(test) {
      if (test(requests)) return Promise.resolve();
      return new Promise((resolve) => waiters.add({ test, resolve }));
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const release of parked) release();
      await server.stop(true);
    },
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

export function startFakeOpik(opts: { apiKey?: string; workspace?: string; hang?: boolean } = {}) {
  const errors = (list: string[]) => json(422, { errors: list });
  return startCollector(
    (req) => {
      if (opts.apiKey) {
        if (req.headers.authorization !== opts.apiKey)
          return json(401, { code: 401, message: "User not allowed to access workspace" });
        if (req.headers["comet-workspace"] !== opts.workspace)
          return json(403, { code: 403, message: "User has no access to the workspace" });
      }
      if (req.method === "GET" && req.path.startsWith("/api/v1/private/projects")) {
        return json(200, { page: 1, size: 0, total: 0, content: [] });
      }
      const kind =
        req.path === "/api/v1/private/traces/batch"
          ? "traces"
          : req.path === "/api/v1/private/spans/batch"
            ? "spans"
            : undefined;
      if (!kind || req.method !== "POST") return json(404, { code: 404, message: "HTTP 404 Not Found" });
      if (!req.headers["content-type"]?.startsWith("application/json"))
        return json(415, { code: 415, message: "HTTP 415 Unsupported Media Type" });
      const items = req.body?.[kind];
      if (!Array.isArray(items) || items.length < 1 || items.length > 1000)
        return errors([`${kind} size must be between 1 and 1000`]);
      const problems: string[] = [];
      for (const [i, item] of items.entries()) {
        if (typeof item.start_time !== "string" || Number.isNaN(Date.parse(item.start_time)))
          problems.push(`${kind}[${i}].start_time must not be null`);
        if (item.id !== undefined && !UUID_V7.test(item.id)) problems.push(`${kind}[${i}].id must be a version 7 UUID`);
        if (kind === "spans") {
          if (!UUID_V7.test(item.trace_id ?? "")) problems.push(`spans[${i}].trace_id must be a version 7 UUID`);
          if (item.parent_span_id !== undefined && !UUID_V7.test(item.parent_span_id))
            problems.push(`spans[${i}].parent_span_id must be a version 7 UUID`);
          if (item.type !== undefined && !SPAN_TYPES.includes(item.type))
            problems.push(`spans[${i}].type is not one of ${SPAN_TYPES}`);
        }
        for (const field of ["input", "output", "metadata"]) {
          const v = item[field];
          if (v !== undefined && (v === null || typeof v !== "object"))
            problems.push(`${kind}[${i}].${field} must be a JSON object`);
        }
      }
      return problems.length ? errors(problems) : new Response(null, { status: 204 });
    },
    { hang: opts.hang, base: "/api" },
  );
}

export function startFakeOtlp(opts: { headers?: Record<string, string>; hang?: boolean } = {}) {
  const bad = (message: string) => json(400, { code: 3, message, details: [] });
  return startCollector(
    (req) => {
      if (req.path !== "/v1/traces") return new Response("404 page not found", { status: 404 });
      if (req.method !== "POST") return new Response("405 method not allowed", { status: 405 });
      for (const [k, v] of Object.entries(opts.headers ?? {})) {
        if (req.headers[k.toLowerCase()] !== v) return json(401, { code: 16, message: "missing or wrong credentials" });
      }
      if (req.headers["content-type"] !== "application/json")
        return new Response("415 unsupported media type", { status: 415 });
      const rs = req.body?.resourceSpans;
      if (!Array.isArray(rs)) return bad("resourceSpans: expected an array");
      for (const r of rs) {
        for (const ss of r.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            if (!/^[0-9a-f]{32}$/.test(s.traceId)) return bad(`invalid traceId ${JSON.stringify(s.traceId)}`);
            if (!/^[0-9a-f]{16}$/.test(s.spanId)) return bad(`invalid spanId ${JSON.stringify(s.spanId)}`);
            if (s.parentSpanId !== undefined && !/^[0-9a-f]{16}$/.test(s.parentSpanId))
              return bad("invalid parentSpanId");
            if (!/^\d+$/.test(s.startTimeUnixNano) || !/^\d+$/.test(s.endTimeUnixNano))
              return bad("times must be decimal strings of nanoseconds");
          }
        }
      }
      return json(200, {});
    },
    { hang: opts.hang, base: "" },
  );
}
