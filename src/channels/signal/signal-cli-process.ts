import { defineError } from "../../error.ts";
import { createBackoff } from "../../net/backoff.ts";
import { type ProcessSpec, ProcessTransport } from "../../plugins/mcp-rail/process-transport.ts";
import { classifyMalformed, clip } from "./_malformed-answer.ts";
import type { SignalCli, SignalCliState, SignalCliStatus } from "./signal-cli-contract.ts";

/** signal-cli answered a request with a JSON-RPC error (its codes: -1 user error, -3 I/O, -5 rate limited …). */
export const SignalRpcError = defineError<{ method: string; rpcCode: number; rpcData?: unknown }>("signal_rpc_error");
/** No signal-cli is running to take the request (not found, restarting, or the daemon is stopping). */
export const SignalCliUnavailable = defineError<{ method: string; transient: boolean }>("signal_cli_unavailable");
/**
 * signal-cli answered a request with something that is not a JSON-RPC answer (a non-object result, no usable
 * id, a line that is not JSON). Not retried: the message may have gone out all the same.
 */
export const SignalProtocolError = defineError<{ method: string }>("signal_protocol_error");

/**
 * Restarts wait by the shared rule (net/backoff.ts): 1 s, 2 s, 4 s … up to this, with jitter; a child that
 * stayed up STABLE_MS starts the count afresh.
 */
export const MAX_RESTART_WAIT_MS = 60_000;
export const FIRST_RESTART_WAIT_MS = 1_000;
export const STABLE_MS = 60_000;
/** A JVM's cold start on a slow machine; past this without an answer the reason says so (the child is kept). */
const PROBE_WAIT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type SignalCliDeps = {
  /** The command to run, looked up on every attempt; a string says why there is nothing to run (not installed). */
  spec(): ProcessSpec | string;
  onNotification(method: string, params: unknown): void;
  log: { info(msg: string): void; warn(msg: string): void };
  now: () => number;
  /** The wait between restarts; cut short by stop() through `signal`. Tests pass one that records and holds. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The backoff's jitter source (tests pass a constant). */
  random?: () => number;
  /** The longest stdout line taken from signal-cli (ProcessTransport's default, 10 MiB, when unset). */
  maxLineBytes?: number;
};

type Pending = {
  method: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
};

/**
 * One long-lived `signal-cli -a ACCOUNT jsonRpc`: requests are JSON-RPC 2.0 lines on its stdin, answers and
 * `receive` notifications lines on its stdout (signal-cli-jsonrpc(5)). It runs in its own process group through
 * the MCP rail's ProcessTransport, so it is recorded for the reaper (a SIGKILLed daemon's child is ended by the
 * next one) and its whole group goes with the daemon. That transport frames lines with the MCP SDK's JSON-RPC
 * schema, which takes only object results: every method used here (version, send, sendReaction, sendTyping)
 * answers an object. A line that fails it (a non-object result, no usable id, not JSON) fails the request it
 * answers at once (SignalProtocolError, logged with the method) rather than leaving it, and the chat's later
 * replies behind it, to the timeout. Its stdout is read a line at a time up to ProcessTransport's cap (10 MiB); a
 * longer line cannot be framed, so the child is ended, its waiting requests fail, and it is started again. If it
 * ends it is started again with a growing wait; unlike an MCP server it is never given up on — the channel has
 * nothing else to receive with — and its state and the reason are data for health().
 */
export function createSignalCli(deps: SignalCliDeps): SignalCli {
  let state: SignalCliState = "starting";
  let reason: string | undefined;
  let lastSeenAt: number | undefined;
  let restarts = 0;
  let current: ProcessTransport | undefined;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const stopped = new AbortController();
  const sleep = deps.sleep ?? defaultSleep;
  const backoff = createBackoff({ initialMs: FIRST_RESTART_WAIT_MS, maxMs: MAX_RESTART_WAIT_MS }, deps.random);

  const settleAll = (err: () => Error) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.reject(err());
    }
  };

  /** Fails one waiting request at once with why its answer is unusable, instead of leaving it to its timeout. */
  const failMalformed = (id: number, why: string) => {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    clearTimeout(waiting.timer);
    deps.log.warn(`signal-cli: a malformed answer to ${waiting.method} (request ${id}): ${why}`);
    waiting.reject(
      SignalProtocolError(`signal-cli gave a malformed answer to ${waiting.method}: ${why}`, {
        method: waiting.method,
      }),
    );
  };

  /**
   * An answer that cannot be matched to its request (no usable id, not JSON at all): every waiting request fails,
   * since any of them may be the one it answered and none would otherwise hear before its timeout.
   */
  const failUnmatched = (why: string) => {
    if (pending.size === 0) deps.log.warn(`signal-cli: ${why}; no request was waiting, so it is ignored`);
    for (const id of [...pending.keys()]) failMalformed(id, why);
  };

  const onMessage = (message: Record<string, unknown>) => {
    lastSeenAt = deps.now();
    if (typeof message.method === "string" && message.id === undefined) {
      deps.onNotification(message.method, message.params);
      return;
    }
    // A request from signal-cli: none is part of its protocol.
    if (typeof message.method === "string") return;
    if (typeof message.id !== "number") {
      return failUnmatched(`an answer with an id fermix never sent (${clip(JSON.stringify(message.id))})`);
    }
    const waiting = pending.get(message.id);
    // A late answer, to a request that already timed out.
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    const error = message.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) {
      waiting.reject(
        SignalRpcError(`signal-cli ${waiting.method}: ${error.message}`, {
          method: waiting.method,
          rpcCode: error.code,
          ...(error.data != null ? { rpcData: error.data } : {}),
        }),
      );
    } else waiting.resolve(message.result);
  };

  /** A stdout line the JSON-RPC schema refused: an answer's fault fails its request (or, unmatched, all of them). */
  const onUnparsed = (line: string) => {
    lastSeenAt = deps.now();
    const fault = classifyMalformed(line);
    if (fault.kind === "unmatched") return failUnmatched(fault.why);
    if (fault.kind === "notification") {
      deps.log.warn(`signal-cli: a malformed ${fault.method} notification was ignored (${clip(line)})`);
    } else if (pending.has(fault.id)) failMalformed(fault.id, fault.why);
    else deps.log.warn(`signal-cli: a malformed late answer (request ${fault.id}) was ignored: ${fault.why}`);
  };

  const send = (transport: ProcessTransport, method: string, params: Record<string, unknown>, timeoutMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(
          SignalCliUnavailable(`signal-cli did not answer ${method} within ${timeoutMs / 1000} s`, {
            method,
            transient: true,
          }),
        );
      }, timeoutMs);
      pending.set(id, { method, resolve, reject, timer });
      transport.send({ jsonrpc: "2.0", id, method, params }).catch((err: Error) => {
        pending.delete(id);
        clearTimeout(timer);
        reject(SignalCliUnavailable(`signal-cli is not running (${err.message})`, { method, transient: true }));
      });
    });

  /** Waits `ms`, or less when stop() is called meanwhile. */
  const pause = (ms: number) => sleep(ms, stopped.signal);

  const supervise = async () => {
    while (!stopping) {
      const spec = deps.spec();
      if (typeof spec === "string") {
        state = "missing";
        reason = spec;
        await pause(backoff.next());
        continue;
      }
      const transport = new ProcessTransport(spec, (line) => deps.log.info(`signal-cli: ${line}`), {
        ...(deps.maxLineBytes ? { maxLineBytes: deps.maxLineBytes } : {}),
      });
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      transport.onmessage = (m) => onMessage(m as Record<string, unknown>);
      transport.onunparsed = (line) => onUnparsed(line);
      transport.onerror = (err) => deps.log.warn(`signal-cli: ${err.message}`);
      const startedAt = deps.now();
      try {
        await transport.start();
      } catch (err) {
        reason = `could not start ${spec.command}: ${(err as Error).message}`;
        state = "restarting";
        await transport.kill();
        deps.log.warn(`signal-cli: ${reason}`);
        await pause(backoff.next());
        continue;
      }
      current = transport;
      state = "starting";
      // signal-cli gives no readiness line: the first answer to `version` is it.
      void send(transport, "version", {}, PROBE_WAIT_MS).then(
        () => {
          if (current !== transport) return;
          state = "running";
          reason = undefined;
          deps.log.info("signal-cli is running");
        },
        (err: Error) => {
          if (current !== transport) return;
          if (SignalProtocolError.is(err)) reason = err.message;
          else if (SignalCliUnavailable.is(err)) reason = `no answer for ${PROBE_WAIT_MS / 1000} s${tail(transport)}`;
        },
      );
      await closed;
      current = undefined;
      settleAll(() => SignalCliUnavailable("signal-cli exited before it answered", { method: "", transient: true }));
      // Helpers it started go with it; the group leaves the reaper's record.
      await transport.kill();
      if (stopping) break;
      if (deps.now() - startedAt >= STABLE_MS) backoff.reset();
      const wait = backoff.next();
      restarts++;
      reason = `it ${exitText(transport)}${tail(transport)}`;
      state = "restarting";
      // Whole seconds, rounded up: the jitter's fractions say nothing to someone reading the log.
      deps.log.warn(`signal-cli: ${reason}; starting it again in ${Math.ceil(wait / 1000)} s`);
      await pause(wait);
    }
    state = "stopped";
  };

  return {
    start(): void {
      loop ??= supervise();
    },

    request(method: string, params: Record<string, unknown>, opts: { timeoutMs?: number } = {}): Promise<unknown> {
      const transport = current;
      if (!transport || stopping) {
        return Promise.reject(
          SignalCliUnavailable(`signal-cli is not running (${state}${reason ? `: ${reason}` : ""})`, {
            method,
            transient: !stopping,
          }),
        );
      }
      return send(transport, method, params, opts.timeoutMs ?? REQUEST_TIMEOUT_MS);
    },

    status(): SignalCliStatus {
      return { state, ...(reason ? { reason } : {}), ...(lastSeenAt ? { lastSeenAt } : {}), restarts };
    },

    async stop(): Promise<void> {
      stopping = true;
      stopped.abort();
      settleAll(() => SignalCliUnavailable("the Signal channel is stopping", { method: "", transient: false }));
      await current?.kill();
      await loop;
      state = "stopped";
    },
  };
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function exitText(transport: ProcessTransport): string {
  const exit = transport.exitStatus;
  if (exit?.signal) return `was ended by ${exit.signal}`;
  return `exited with code ${exit?.code ?? "?"}`;
}

/** signal-cli's last stderr line ("User +1555… is not registered."), which usually says what is wrong. */
function tail(transport: ProcessTransport): string {
  const last = transport.stderr
    .split("\n")
    .filter((l) => l.trim())
    .at(-1);
  return last ? `: ${last.trim()}` : "";
}
