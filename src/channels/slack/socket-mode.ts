import type { SocketModeClient } from "@slack/socket-mode";
import { defineError } from "../../error.ts";
import { createBackoff } from "../../net/backoff.ts";
import type { ChannelHealth } from "../channel.ts";
import { errorFix, errorKind } from "./api-errors.ts";
import { cappedSlackFetch, type SlackLog, sdkLogger } from "./web-api.ts";

/** Slack's hello must arrive this soon after the connection is asked for, or the attempt counts as failed. */
export const HELLO_TIMEOUT_MS = 30_000;
/**
 * After Slack closes a working connection (it recycles them every few hours), the next opens after this. A
 * connection that closes again before STABLE_MS doubles the wait (a peer that accepts and drops at once is not
 * redialled in a tight loop), up to RETRY_MAX_MS; one that stayed up STABLE_MS starts it afresh.
 */
export const RECONNECT_MS = 250;
export const STABLE_MS = 60_000;
/** A failed attempt waits from RETRY_MIN_MS, doubling, up to RETRY_MAX_MS. Both by net/backoff.ts, with jitter. */
export const RETRY_MIN_MS = 1000;
export const RETRY_MAX_MS = 60_000;
/** Failed attempts in a row after which the channel reports itself degraded; re-logged at most this often. */
export const DEGRADED_AFTER = 5;
/**
 * The longest Socket Mode frame parsed, in characters (an envelope is a few KB; Slack's longest message text is
 * 40,000). A longer one is dropped unparsed and unacknowledged, with a warning; the connection stays.
 */
export const MAX_FRAME_CHARS = 1024 * 1024;
export const RELOG_MS = 15 * 60_000;

export type SocketModeDeps = {
  appToken: string;
  /** The Web API's base: apps.connections.open there hands out the wss:// URL. */
  apiUrl: string;
  log: SlackLog;
  redact: (text: string) => string;
  now: () => number;
  /** One events_api envelope's event, acknowledged already. */
  /** One events_api envelope's event; acknowledged once this resolves (the message stored). */
  onEvent(event: unknown, eventId: string | undefined): Promise<void> | void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The backoff's jitter source (tests pass a constant). */
  random?: () => number;
  /** MAX_FRAME_CHARS unless a test sets a smaller one. */
  maxFrameChars?: number;
};

/** The app-level token was refused: retrying changes nothing until the owner fixes it. */
export const SlackAppTokenRefused = defineError<{ error: string }>("slack_app_token_refused");

const appTokenRefused = (error: string) =>
  SlackAppTokenRefused(`Slack refused the app-level token (${error}): ${errorFix(error, "app")}`, { error });

/**
 * Socket Mode with @slack/socket-mode, its own reconnecting turned off: when Slack is unreachable at a reconnect,
 * the SDK's reconnect path rejects a promise nobody awaits, which would end the daemon. This loop does it instead:
 * open a connection (apps.connections.open with the app-level token, then the websocket and Slack's hello), hand
 * on every envelope after acknowledging it at once (Slack re-sends what is not acknowledged within 3 s), and when
 * the connection ends, open the next — soon after a clean close, with a growing wait after a failure (and after
 * closes that come quick in a row), by the shared backoff rule. Five failures in a row make the channel degraded
 * until a connection works again. It stops only with stop().
 */
export function createSocketMode(deps: SocketModeDeps) {
  const sleep = deps.sleep ?? defaultSleep;
  const stopping = new AbortController();
  let client: SocketModeClient | undefined;
  let loop: Promise<void> | undefined;
  let connected = false;
  let lastUpdateAt: number | undefined;
  let failures = 0;
  let openedAt = 0;
  const retryWaits = createBackoff({ initialMs: RETRY_MIN_MS, maxMs: RETRY_MAX_MS }, deps.random);
  const reopenWaits = createBackoff({ initialMs: RECONNECT_MS, maxMs: RETRY_MAX_MS }, deps.random);
  let lastError = "";
  let refused: string | undefined;
  let degradedLoggedAt: number | undefined;

  /** One connection, from apps.connections.open to Slack's hello (rejects if it never opens); `closed` is its end. */
  async function connect(): Promise<{ closed: Promise<void> }> {
    const { SocketModeClient, LogLevel } = await import("@slack/socket-mode");
    // stop() may have come while the SDK loaded: no connection is opened after it.
    if (stopping.signal.aborted) throw new Error("the slack channel is stopping");
    client?.removeAllListeners();
    const next = new SocketModeClient({
      appToken: deps.appToken,
      autoReconnectEnabled: false,
      clientOptions: {
        slackApiUrl: deps.apiUrl,
        retryConfig: { retries: 0 },
        timeout: 30_000,
        // apps.connections.open's answer, capped like every Web API answer (web-api.ts).
        fetch: cappedSlackFetch(),
      },
      logger: sdkLogger(deps.log, deps.redact, LogLevel.WARN),
    });
    capFrames(next, deps.maxFrameChars ?? MAX_FRAME_CHARS, deps.log);
    next.on("slack_event", async (envelope: { ack(): Promise<void>; type?: string; body?: any }) => {
      lastUpdateAt = deps.now();
      // Acknowledged only once the message is stored (a local write, well inside Slack's 3 s): a crash before the
      // ack makes Slack send it again, and the dedupe and memory.db keep that to one turn.
      if (envelope.type === "events_api") {
        await Promise.resolve(deps.onEvent(envelope.body?.event, envelope.body?.event_id)).catch((err: unknown) =>
          deps.log.warn(`slack: an event could not be taken in: ${(err as Error)?.message ?? err}`),
        );
      }
      void envelope.ack().catch(() => {});
    });
    client = next;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        next.start(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("no hello from Slack within 30 s")), HELLO_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      next.removeAllListeners();
      void next.disconnect().catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (stopping.signal.aborted) void next.disconnect().catch(() => {});
    return { closed: new Promise<void>((resolve) => next.once("disconnected", () => resolve())) };
  }

  function succeeded(): void {
    if (failures >= DEGRADED_AFTER) deps.log.info("slack: Socket Mode is connected again");
    failures = 0;
    retryWaits.reset();
    openedAt = deps.now();
    refused = undefined;
    degradedLoggedAt = undefined;
    connected = true;
    lastUpdateAt = deps.now();
  }

  /** Counts a failed attempt and says how long to wait before the next. */
  function failed(err: unknown): number {
    failures += 1;
    connected = false;
    lastError = describe(err, deps.redact);
    const code = platformError(err);
    refused = code && errorKind(code) === "authentication" ? code : undefined;
    if (failures >= DEGRADED_AFTER) {
      const now = deps.now();
      if (degradedLoggedAt === undefined || now - degradedLoggedAt >= RELOG_MS) {
        degradedLoggedAt = now;
        deps.log.error(`slack: degraded — ${degradedSentence()}`);
      }
    } else {
      deps.log.warn(`slack: Socket Mode could not connect: ${lastError}`);
    }
    return retryWaits.next();
  }

  function degradedSentence(): string {
    if (refused) return appTokenRefused(refused).message;
    return `Socket Mode failed to connect ${failures} times in a row (last: ${lastError}); fermix keeps trying`;
  }

  async function run(closed: Promise<void> | undefined): Promise<void> {
    let open = closed;
    while (!stopping.signal.aborted) {
      if (open) {
        await open;
        connected = false;
        open = undefined;
        if (stopping.signal.aborted) return;
        if (deps.now() - openedAt >= STABLE_MS) reopenWaits.reset();
        deps.log.info("slack: Socket Mode connection closed; opening the next");
        await sleep(reopenWaits.next(), stopping.signal);
        continue;
      }
      try {
        open = (await connect()).closed;
        succeeded();
      } catch (err) {
        if (stopping.signal.aborted) return;
        await sleep(failed(err), stopping.signal);
      }
    }
  }

  return {
    /**
     * Opens the first connection. An app-level token Slack refuses fails here, loudly; any other failure is the
     * loop's to retry, so the channel starts, reports its state, and connects when it can.
     */
    async start(): Promise<void> {
      try {
        const { closed } = await connect();
        succeeded();
        loop = run(closed);
      } catch (err) {
        const code = platformError(err);
        if (code && errorKind(code) === "authentication") throw appTokenRefused(code);
        const wait = failed(err);
        loop = (async () => {
          await sleep(wait, stopping.signal);
          await run(undefined);
        })();
      }
    },

    async stop(): Promise<void> {
      stopping.abort();
      const current = client;
      // The SDK waits for Slack's side of the close handshake; a peer that never answers does not hold the stop.
      await Promise.race([current?.disconnect().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
      current?.removeAllListeners();
      await loop?.catch(() => {});
    },

    health(): ChannelHealth {
      const degraded = failures >= DEGRADED_AFTER || refused ? degradedSentence() : undefined;
      return {
        connected,
        ...(lastUpdateAt !== undefined ? { lastUpdateAt } : {}),
        ...(degraded ? { degraded } : {}),
      };
    },
  };
}

/**
 * Puts a size check in front of the SDK's own frame handler, which parses every text frame whole: a frame past
 * `max` never reaches JSON.parse. (Bun's WebSocket has already received it; this bounds what is parsed and kept.)
 */
function capFrames(client: SocketModeClient, max: number, log: SlackLog): void {
  const handlers = client.listeners("ws_message") as Array<(data: unknown, isBinary: boolean) => unknown>;
  // The SDK registers exactly one; anything else is a version this was not written for, left as it is.
  if (handlers.length !== 1) return;
  const parse = handlers[0]!;
  client.removeAllListeners("ws_message");
  client.on("ws_message", (data: unknown, isBinary: boolean) => {
    const size = typeof data === "string" ? data.length : ((data as { byteLength?: number })?.byteLength ?? 0);
    if (size > max) {
      log.warn(`slack: dropped a Socket Mode frame of ${size} characters, over the ${max} limit, unread`);
      return;
    }
    return parse.call(client, data, isBinary);
  });
}

/** Slack's error code when the failure was an `ok:false` answer (apps.connections.open refusing the token). */
function platformError(err: unknown): string | undefined {
  const e = err as { code?: unknown; data?: { error?: unknown } } | undefined;
  return e?.code === "slack_webapi_platform_error" && typeof e.data?.error === "string" ? e.data.error : undefined;
}

function describe(err: unknown, redact: (s: string) => string): string {
  const code = platformError(err);
  if (code) return `apps.connections.open: ${code}`;
  const e = err as { original?: { message?: unknown }; message?: unknown } | undefined;
  const text =
    e?.original?.message ?? e?.message ?? (err === undefined ? "the connection closed before Slack's hello" : err);
  return redact(String(text));
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
