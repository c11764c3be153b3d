import * as v from "valibot";
import { forgetAuth } from "../auth/forget-route.ts";
import { FermixError } from "../error.ts";
import { askLocally } from "../gateway/local-ask.ts";
import { redact } from "../observability/redact.ts";
import { AskRequest, MIN_CLIENT_PROTOCOL, PROTOCOL_HEADER, PROTOCOL_VERSION } from "../protocol/ask-schemas.ts";
// Types only: the daemon validates requests, never its own answers, so it does not build the whole protocol.
import type { Health, Hello, Status } from "../protocol/schemas.ts";
import { reloadReport } from "../skills/report.ts";
import { VERSION } from "../version.ts";
import type { DaemonState } from "./daemon-state.ts";
import { errorResponse, serialise, toFermixError } from "./http-errors.ts";
import { handleJobRoute } from "./job-routes.ts";

/** Routes `/v1/...`. Every body that arrives is validated with the shared protocol schemas. */
export async function handle(req: Request, state: DaemonState): Promise<Response> {
  try {
    checkProtocol(req);
    const url = new URL(req.url);
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case "GET /v1/hello":
        return Response.json({
          version: VERSION,
          protocol: { version: PROTOCOL_VERSION, min_client: MIN_CLIENT_PROTOCOL },
        } satisfies Hello);
      case "GET /v1/health":
        return Response.json({
          ok: true,
          version: VERSION,
          pid: process.pid,
          subsystems: subsystemStates(state),
        } satisfies Health);
      case "GET /v1/status":
        return redactedJson(status(state));
      case "POST /v1/ask":
        return await ask(req, state);
      case "GET /v1/plugins":
        return redactedJson(await state.app.plugins.report());
      case "POST /v1/plugins/reload":
        // ?dev_local=1 (an author's `fermix plugins reload`) also restarts dev_local servers, whose code changes
        // in place without a new version.
        await state.app.plugins.reload({ devLocal: new URL(req.url).searchParams.get("dev_local") === "1" });
        return redactedJson(await state.app.plugins.report());
      case "POST /v1/skills/reload":
        return Response.json(reloadReport(await state.app.skills.reload()));
      case "GET /v1/channels":
        return redactedJson({
          channels: state.app.channels.status(),
          webhooks: state.app.channels.runtime()?.webhooks() ?? { state: "idle" },
        });
      case "POST /v1/auth/forget":
        return await forgetAuth(req);
      case "POST /v1/jobs/changed":
        // A one-shot CLI created or edited a job: the clock looks at the database again.
        (await state.app.jobs()).changed();
        return Response.json({ ok: true });
      case "POST /v1/shutdown":
        // After this response has gone out.
        setTimeout(() => state.requestShutdown(), 0);
        return Response.json({ ok: true }, { status: 202 });
      default:
        return (await handleJobRoute(req, url, state)) ?? notFound(route);
    }
  } catch (err) {
    return errorResponse(err);
  }
}

/**
 * A state the daemon reports (a plugin's or a channel's last error, a model's words) may quote a secret a peer
 * echoed back; the CLI on the other end never resolved this process's secrets, so the daemon redacts before sending.
 */
function redactedJson(body: unknown): Response {
  return new Response(redact(JSON.stringify(body)), { headers: { "content-type": "application/json" } });
}

function notFound(route: string): never {
  throw new FermixError("not_found", `no route ${route}`);
}

/** A client that sends no header (curl) is served; a declared version must be one we speak. */
function checkProtocol(req: Request): void {
  const declared = req.headers.get(PROTOCOL_HEADER);
  if (declared === null) return;
  const version = Number(declared);
  if (!Number.isInteger(version) || version < MIN_CLIENT_PROTOCOL) {
    throw new FermixError(
      "client_too_old",
      `this fermix CLI is too old for the running daemon (${VERSION}); update the CLI`,
      {
        daemon_protocol: PROTOCOL_VERSION,
      },
    );
  }
  if (version > PROTOCOL_VERSION) {
    throw new FermixError(
      "daemon_too_old",
      `the running daemon (${VERSION}) is older than this CLI; restart it: fermix restart`,
      {
        daemon_protocol: PROTOCOL_VERSION,
      },
    );
  }
}

function status(state: DaemonState): Status {
  let primary: string | null = null;
  let fallbacks: string[] = [];
  try {
    const routes = state.app.routes();
    primary = routes[0]?.descriptor.id ?? null;
    fallbacks = routes.slice(1).map((r) => r.descriptor.id);
  } catch {
    // No usable provider is a state to report, not a reason to fail status.
  }
  return {
    pid: process.pid,
    version: VERSION,
    started_at: new Date(state.startedAt).toISOString(),
    uptime_ms: Date.now() - state.startedAt,
    home: state.app.paths.home,
    protocol: PROTOCOL_VERSION,
    primary_provider: primary,
    fallback_providers: fallbacks,
    active_turns: state.turns.size,
    subsystems: subsystemStates(state),
    ...(state.web ? { web: state.web() } : {}),
    trace_export: state.app.traceExport(),
    ...(state.faults ? { daemon_errors: state.faults() } : {}),
  };
}

/** Each part of the daemon as its own object says (the same objects doctor and `channels status` read). */
function subsystemStates(state: DaemonState) {
  return state.app.subsystems.map((part) => part.status());
}

async function ask(req: Request, state: DaemonState): Promise<Response> {
  const body = await req.json().catch(() => {
    throw new FermixError("invalid_request", "the request body is not JSON");
  });
  const parsed = v.safeParse(AskRequest, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join(".") ?? "body";
    throw new FermixError("invalid_request", `ask: ${field}: ${issue.message}`, { field });
  }

  const controller = new AbortController();
  state.turns.add(controller);
  // The client hanging up (Ctrl-C, its own timeout) cancels the turn, which then commits nothing.
  req.signal.addEventListener("abort", () => controller.abort(), { once: true });
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(out) {
      // Bun sends a streamed response's headers with its first chunk. A comment line (which every SSE reader skips,
      // like the keep-alive below) sends them now, so the client has its reader set up while the turn runs instead
      // of after the first delta.
      out.enqueue(encoder.encode(": answering\n\n"));
      const send = (event: string, data: unknown) => {
        try {
          out.enqueue(encoder.encode(`event: ${event}\ndata: ${redact(JSON.stringify(data))}\n\n`));
        } catch {}
      };
      // A comment line now and then keeps a slow turn's connection from looking idle to either side.
      const keepAlive = setInterval(() => {
        try {
          out.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {}
      }, 5000);
      askLocally(state.app, parsed.output, {
        signal: controller.signal,
        onText: (delta) => send("text", { delta }),
        onNotice: (text, approval) => send("notice", approval ? { text, approval } : { text }),
      })
        .then((done) => send("done", done))
        .catch((err) => send("error", serialise(toFermixError(err))))
        .finally(() => {
          clearInterval(keepAlive);
          state.turns.delete(controller);
          try {
            out.close();
          } catch {}
        });
    },
    cancel() {
      controller.abort();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
