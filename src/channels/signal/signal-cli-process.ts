import { defineError } from "../../error.ts";
import { type ProcessSpec, ProcessTransport } from "../../plugins/mcp-rail/process-transport.ts";
import type { SignalCli, SignalCliState, SignalCliStatus } from "./signal-cli-contract.ts";

/** signal-cli answered a request with a JSON-RPC error (its codes: -1 user error, -3 I/O, -5 rate limited …). */
export const SignalRpcError = defineError<{ method: string; rpcCode: number; rpcData?: unknown }>("signal_rpc_error");
/** No signal-cli is running to take the request (not found, restarting, or the daemon is stopping). */
export const SignalCliUnavailable = defineError<{ method: string; transient: boolean }>("signal_cli_unavailable");

/** Restarts wait 1 s, 2 s, 4 s … up to this; a child that stayed up STABLE_MS starts the count afresh. */
export const MAX_RESTART_WAIT_MS = 60_000;
const FIRST_RESTART_WAIT_MS = 1_000;
const STABLE_MS = 60_000;
/** A JVM's cold start on a slow machine; past this without an answer the reason says so (the child is kept). */
const PROBE_WAIT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type SignalCliDeps = {
  /** The command to run, looked up on every attempt; a string says why there is nothing to run (not installed). */
  spec(): ProcessSpec | string;
  onNotification(method: string, params: unknown): void;
  log: { info(msg: string): void; warn(msg: string): void };
  now: () => number;
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
 * answers an object. If it ends it is started again with a growing wait; unlike an MCP server it is never given
 * up on — the channel has nothing else to receive with — and its state and the reason are data for health().
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
  const stopped = Promise.withResolvers<void>();

  const settleAll = (err: () => Error) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.reject(err());
    }
  };

  const onMessage = (message: Record<string, unknown>) => {
    lastSeenAt = deps.now();
    if (typeof message.method === "string" && message.id === undefined) {
      deps.onNotification(message.method, message.params);
      return;
    }
    const waiting = typeof message.id === "number" ? pending.get(message.id) : undefined;
    if (!waiting) return;
    pending.delete(message.id as number);
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
  const pause = async (ms: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms))), stopped.promise]);
    clearTimeout(timer);
  };

  const supervise = async () => {
    let failures = 0;
    while (!stopping) {
      const spec = deps.spec();
      if (typeof spec === "string") {
        state = "missing";
        reason = spec;
        await pause(backoff(++failures));
        continue;
      }
      const transport = new ProcessTransport(spec, (line) => deps.log.info(`signal-cli: ${line}`));
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      transport.onmessage = (m) => onMessage(m as Record<string, unknown>);
      transport.onerror = (err) => deps.log.warn(`signal-cli: ${err.message}`);
      const startedAt = deps.now();
      try {
        await transport.start();
      } catch (err) {
        reason = `could not start ${spec.command}: ${(err as Error).message}`;
        state = "restarting";
        await transport.kill();
        deps.log.warn(`signal-cli: ${reason}`);
        await pause(backoff(++failures));
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
          if (current !== transport || !SignalCliUnavailable.is(err)) return;
          reason = `no answer for ${PROBE_WAIT_MS / 1000} s${tail(transport)}`;
        },
      );
      await closed;
      current = undefined;
      settleAll(() => SignalCliUnavailable("signal-cli exited before it answered", { method: "", transient: true }));
      // Helpers it started go with it; the group leaves the reaper's record.
      await transport.kill();
      if (stopping) break;
      if (deps.now() - startedAt >= STABLE_MS) failures = 0;
      const wait = backoff(++failures);
      restarts++;
      reason = `it ${exitText(transport)}${tail(transport)}`;
      state = "restarting";
      deps.log.warn(`signal-cli: ${reason}; starting it again in ${wait / 1000} s`);
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
      stopped.resolve();
      settleAll(() => SignalCliUnavailable("the Signal channel is stopping", { method: "", transient: false }));
      await current?.kill();
      await loop;
      state = "stopped";
    },
  };
}

function backoff(failures: number): number {
  return Math.min(FIRST_RESTART_WAIT_MS * 2 ** Math.max(0, failures - 1), MAX_RESTART_WAIT_MS);
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
