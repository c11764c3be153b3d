import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { checkAppConfig } from "../app-config.ts";
import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { isProcessRunning } from "../fs/lock-files.ts";
import { createDaemonClient } from "../protocol/client.ts";
import { sleep, spawn } from "../runtime/processes.ts";
import { createServiceManager } from "./manager.ts";
import type { ServiceManager } from "./manager-contract.ts";
import type { CommandRunner } from "./service-command.ts";
import type { ServiceScope } from "./service-target.ts";
import { daemonOutputPath, serviceKind, serviceTarget, unitServesHome } from "./target.ts";

/**
 * Starting, stopping and waiting for the daemon of one FERMIX_HOME — through its service when one is
 * installed for that home (so the manager's view stays true and launchd's KeepAlive does not undo a stop),
 * as a detached process otherwise. `fermix start|stop|restart` and `fermix upgrade` use these.
 */

export type DaemonHealth = { running: true; version: string; pid: number } | { running: false };

const HEALTH_TIMEOUT_MS = 2000;
const POLL_MS = 100;
const DEFAULT_TIMEOUT_MS = 10_000;

/** Asks the daemon on `socketPath` for its health; nothing answering (or answering too slowly) is "not running". */
export async function daemonHealth(socketPath: string): Promise<DaemonHealth> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const health = await Promise.race([
      createDaemonClient(socketPath).health(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out")), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return { running: true, version: health.version, pid: health.pid };
  } catch {
    return { running: false };
  } finally {
    clearTimeout(timer);
  }
}

export type ServiceLookup = { platform?: string; systemRoot?: string; uid?: number; run?: CommandRunner };

/**
 * The manager of the installed service that runs this env's FERMIX_HOME: the user unit first, then the
 * system one. Undefined when neither is installed for this home, or the platform has no manager.
 */
export function installedService(env: Env, lookup: ServiceLookup = {}): ServiceManager | undefined {
  let kind: ReturnType<typeof serviceKind>;
  try {
    kind = serviceKind(lookup.platform);
  } catch {
    return undefined;
  }
  const home = resolveHome(env);
  for (const scope of ["user", "system"] as ServiceScope[]) {
    const target = serviceTarget({ kind, scope, env, systemRoot: lookup.systemRoot });
    if (servesHome(target, home)) return createServiceManager(target, { env, uid: lookup.uid, run: lookup.run });
  }
  return undefined;
}

export type StartOptions = {
  binary: string;
  /** The entry script when `binary` is a runtime (`bun src/main.ts` from a checkout). */
  entry?: string;
  env: Record<string, string | undefined>;
  manager?: ServiceManager;
  /** startDaemon does not wait; restartDaemon gives this to its stop. */
  timeoutMs?: number;
};

export type StartResult = {
  via: "service" | "process";
  pid?: number;
  /** For a detached process: resolves with its exit code if it ends (a daemon that fails to start). */
  exited?: Promise<number>;
  /** For a detached process: where its output goes, and where this start's part of that file begins. */
  output?: { path: string; offset: number };
};

/**
 * Starts the daemon: through the service when this home's unit is installed, else `<binary> run` as a
 * detached process (own session, stdin closed, output appended to logs/daemon-output.log, unref'd so
 * the caller can exit). Does not wait for health — waitForDaemon does.
 */
export async function startDaemon(opts: StartOptions): Promise<StartResult> {
  const home = resolveHome(opts.env);
  const manager = serviceFor(opts);
  if (manager) {
    await manager.start();
    return { via: "service" };
  }
  const paths = fermixPaths(home);
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 });
  const outputPath = daemonOutputPath(home);
  const out = openSync(outputPath, "a", 0o600);
  try {
    const offset = fstatSync(out).size;
    const proc = spawn([opts.binary, ...(opts.entry ? [opts.entry] : []), "run"], {
      env: defined(opts.env),
      cwd: paths.home,
      detached: true,
      stdin: "ignore",
      stdout: out,
      stderr: out,
    });
    proc.unref();
    return { via: "process", pid: proc.pid, exited: proc.exited, output: { path: outputPath, offset } };
  } finally {
    closeSync(out);
  }
}

export const StopTimeout = (pid: number, ms: number) =>
  new FermixError("stop_timeout", `the daemon (pid ${pid}) has not stopped after ${ms / 1000} s`, { pid });

/**
 * Stops this home's daemon and waits until its process has ended, `timeoutMs` at most.
 * Through the service manager when the unit is installed; a daemon still answering afterwards (one
 * started by hand beside an installed unit) also gets the shutdown request over the socket.
 */
export async function stopDaemon(opts: {
  env: Record<string, string | undefined>;
  manager?: ServiceManager;
  timeoutMs?: number;
}): Promise<{ stopped: boolean; pid?: number }> {
  const socket = fermixPaths(resolveHome(opts.env)).socket;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const before = await daemonHealth(socket);
  const manager = serviceFor(opts);
  if (!before.running) {
    // A unit in its restart back-off is still worth stopping; a manager that cannot be reached is not news here.
    await manager?.stop().catch(() => {});
    return { stopped: false };
  }
  if (manager) await manager.stop();
  if (!manager || (await daemonHealth(socket)).running) {
    await createDaemonClient(socket)
      .shutdown()
      .catch((err) => {
        if ((err as FermixError).code !== "not_running") throw err;
      });
  }
  const deadline = Date.now() + timeoutMs;
  // The process ending is what counts: Bun unlinks the socket as soon as the HTTP server stops, while the daemon
  // still stops its plugin servers and closes memory.db.
  const gone = () => !isProcessRunning(before.pid);
  while (!gone() && Date.now() < deadline) await sleep(20);
  if (!gone()) throw StopTimeout(before.pid, timeoutMs);
  return { stopped: true, pid: before.pid };
}

export type RestartOptions = StartOptions & {
  /**
   * Throws what the daemon about to start would refuse at start. By default this fermix's own check, for
   * `opts.binary` is this fermix; `fermix upgrade` starts another binary and hands in that one's check.
   */
  checkConfig?: (env: Env) => Promise<unknown>;
};

/**
 * Stops the daemon if it runs, then starts it again (through the service when installed). The config the next
 * daemon loads is checked first: a broken config.toml is refused with its error and the running daemon is not
 * touched, rather than stopped for a successor that cannot start.
 */
export async function restartDaemon(
  opts: RestartOptions,
): Promise<{ stopped: { stopped: boolean; pid?: number }; started: StartResult }> {
  await (opts.checkConfig ?? checkAppConfig)(opts.env);
  const stopped = await stopDaemon(opts);
  const started = await startDaemon(opts);
  return { stopped, started };
}

export type WaitResult = { ok: true; version: string; pid: number } | { ok: false; reason: string };

/**
 * Polls health every ~100 ms until the daemon answers — and reports `version`, when given — or
 * `timeoutMs` passes. The reason names what it last saw: "not answering", "reports 0.1.0", or that the
 * started process exited.
 */
export async function waitForDaemon(opts: {
  socket: string;
  version?: string;
  timeoutMs: number;
  /** The started process's exit, to stop waiting on a daemon that already failed. */
  exited?: Promise<number>;
}): Promise<WaitResult> {
  const deadline = Date.now() + opts.timeoutMs;
  let exitCode: number | undefined;
  opts.exited?.then((code) => {
    exitCode = code;
  });
  let reason = "not answering";
  while (true) {
    const health = await daemonHealth(opts.socket);
    if (health.running) {
      if (opts.version === undefined || health.version === opts.version) {
        return { ok: true, version: health.version, pid: health.pid };
      }
      reason = `reports ${health.version}`;
    } else {
      reason = "not answering";
      if (exitCode !== undefined) return { ok: false, reason: `exited with code ${exitCode}` };
    }
    if (Date.now() >= deadline) return { ok: false, reason };
    await sleep(POLL_MS);
  }
}

/** The last lines a detached start wrote to its output file, for a start that failed. */
export function outputTail(output: { path: string; offset: number }, lines = 10): string[] {
  try {
    const text = readFileSync(output.path).subarray(output.offset).toString("utf8").trimEnd();
    return text ? text.split("\n").slice(-lines) : [];
  } catch {
    return [];
  }
}

function serviceFor(opts: { env: Env; manager?: ServiceManager }): ServiceManager | undefined {
  if (!opts.manager) return installedService(opts.env);
  return servesHome(opts.manager.target, resolveHome(opts.env)) ? opts.manager : undefined;
}

function servesHome(target: { kind: "systemd" | "launchd"; path: string }, home: string): boolean {
  let text: string;
  try {
    text = readFileSync(target.path, "utf8");
  } catch {
    return false;
  }
  return unitServesHome(target.kind, text, home);
}

function defined(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
