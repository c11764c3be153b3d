import type { ChildProcess, SpawnOptions as NodeSpawnOptions } from "node:child_process";
import { bun, nodeModule, onBun } from "./host.ts";

type ChildProcessModule = typeof import("node:child_process");
const childProcess = () => nodeModule<ChildProcessModule>("node:child_process");

/** Where a child's stream goes: nowhere, a pipe we read or write, ours, or an open file descriptor. */
export type Stdio = "ignore" | "pipe" | "inherit" | number;

export type SpawnOptions = {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: Stdio;
  stdout?: Stdio;
  stderr?: Stdio;
  /** A new session and process group, so one signal reaches everything the child starts. */
  detached?: boolean;
  /** Killed (SIGTERM) after this long. */
  timeout?: number;
};

export type Child = {
  pid: number;
  /** The exit code; 128 + the signal's number when a signal ended it. */
  exited: Promise<number>;
  stdout: ReadableStream<Uint8Array> | null;
  stderr: ReadableStream<Uint8Array> | null;
  kill(signal?: NodeJS.Signals): void;
  /** Lets this process exit while the child still runs. */
  unref(): void;
};

/**
 * Starts a process. Bun's own spawn on Bun (node:child_process costs a one-shot ask milliseconds just to
 * import); node:child_process on Deno, which has process groups there as Deno's own API does not.
 */
export function spawn(argv: string[], opts: SpawnOptions = {}): Child {
  if (onBun) {
    const proc = bun().spawn(argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdin: opts.stdin ?? "ignore",
      stdout: opts.stdout ?? "ignore",
      stderr: opts.stderr ?? "ignore",
      detached: opts.detached,
      timeout: opts.timeout,
    } as Parameters<typeof Bun.spawn>[1]);
    return {
      pid: proc.pid,
      exited: proc.exited,
      stdout: proc.stdout instanceof ReadableStream ? proc.stdout : null,
      stderr: proc.stderr instanceof ReadableStream ? proc.stderr : null,
      kill: (signal) => proc.kill(signal),
      unref: () => proc.unref(),
    };
  }
  const child = childProcess().spawn(argv[0]!, argv.slice(1), nodeOptions(opts));
  // A child that could not start has no pid; Node reports why only on the next tick, Bun.spawn throws at
  // once, and callers try/catch around spawn() rather than wait for `exited`.
  if (child.pid === undefined) {
    child.once("error", () => {});
    throw startFailure(argv, opts);
  }
  const { Readable } = nodeModule<typeof import("node:stream")>("node:stream");
  const web = (stream: NodeJS.ReadableStream | null) =>
    stream ? (Readable.toWeb(stream as import("node:stream").Readable) as ReadableStream<Uint8Array>) : null;
  return {
    pid: child.pid ?? -1,
    exited: exitOf(child),
    stdout: web(child.stdout),
    stderr: web(child.stderr),
    kill: (signal) => void child.kill(signal),
    unref: () => child.unref(),
  };
}

export type SpawnSyncResult = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The output passed `maxBuffer`: the child was ended and what was kept is incomplete. */
  overflowed?: true;
};

/**
 * Runs a short command to its end. Throws when it cannot start (not installed); `stdin` text is written
 * to it. Output is decoded as UTF-8; only "pipe" streams are captured.
 */
export function spawnSync(
  argv: string[],
  opts: Omit<SpawnOptions, "detached" | "stdin"> & {
    stdin?: "ignore" | string;
    /** Output past this many bytes (on stdout or stderr) ends the child: `overflowed`, the output cut short. */
    maxBuffer?: number;
  } = {},
): SpawnSyncResult {
  const input = opts.stdin !== undefined && opts.stdin !== "ignore" ? opts.stdin : undefined;
  if (onBun) {
    const proc = bun().spawnSync(argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdin: input === undefined ? "ignore" : new TextEncoder().encode(input),
      stdout: opts.stdout ?? "ignore",
      stderr: opts.stderr ?? "ignore",
      timeout: opts.timeout,
      ...(opts.maxBuffer !== undefined ? { maxBuffer: opts.maxBuffer } : {}),
    } as Parameters<typeof Bun.spawnSync>[1]);
    const result = {
      exitCode: proc.exitCode,
      stdout: proc.stdout?.toString() ?? "",
      stderr: proc.stderr?.toString() ?? "",
    };
    return (proc as { exitedDueToMaxBuffer?: boolean }).exitedDueToMaxBuffer ? { ...result, overflowed: true } : result;
  }
  const result = childProcess().spawnSync(argv[0]!, argv.slice(1), {
    ...nodeOptions({ ...opts, stdin: input === undefined ? "ignore" : "pipe" }),
    input,
    encoding: "utf8",
    ...(opts.maxBuffer !== undefined ? { maxBuffer: opts.maxBuffer } : {}),
  });
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOBUFS") {
    return { exitCode: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", overflowed: true };
  }
  // Node reports a timeout as an error beside the output; Bun returns exitCode null with the output.
  if (result.error && code !== "ETIMEDOUT") throw result.error;
  // Deno returns an empty result, and no error, for a command it found but could not start (not executable).
  if (result.status === undefined) throw startFailure(argv, opts);
  return { exitCode: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** The full path of a command on PATH (the given PATH, else ours), or null. */
export function which(command: string, opts: { PATH?: string } = {}): string | null {
  if (onBun) return bun().which(command, opts.PATH !== undefined ? { PATH: opts.PATH } : undefined);
  const { accessSync, statSync, constants } = nodeModule<typeof import("node:fs")>("node:fs");
  const { delimiter, join, resolve } = nodeModule<typeof import("node:path")>("node:path");
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  // Bun.which answers a relative path as an absolute one, so a later spawn from another cwd still finds it.
  if (command.includes("/")) return executable(command) ? resolve(command) : null;
  for (const dir of (opts.PATH ?? process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    if (executable(candidate)) return candidate;
  }
  return null;
}

export function sleep(ms: number): Promise<void> {
  return onBun ? bun().sleep(ms) : new Promise((resolve) => setTimeout(resolve, ms));
}

function nodeOptions(opts: SpawnOptions): NodeSpawnOptions {
  const env: Record<string, string> | undefined = opts.env
    ? Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined))
    : undefined;
  return {
    cwd: opts.cwd,
    env,
    stdio: [opts.stdin ?? "ignore", opts.stdout ?? "ignore", opts.stderr ?? "ignore"],
    detached: opts.detached,
    timeout: opts.timeout,
  };
}

/**
 * The error Bun would have thrown for a child that did not start, as near as can be told from outside: Deno
 * gives the real one only later (spawn's "error" event) or not at all (spawnSync's empty result). A missing
 * cwd or command is ENOENT; a command that exists, EACCES.
 */
function startFailure(argv: string[], opts: Pick<SpawnOptions, "cwd" | "env">): Error {
  const { existsSync } = nodeModule<typeof import("node:fs")>("node:fs");
  const { resolve } = nodeModule<typeof import("node:path")>("node:path");
  const command = argv[0]!;
  const found = command.includes("/")
    ? existsSync(resolve(opts.cwd ?? ".", command))
    : which(command, { PATH: opts.env?.PATH }) !== null;
  const missing = !found || (opts.cwd !== undefined && !existsSync(opts.cwd));
  const [code, errno, reason] = missing
    ? ["ENOENT", -2, "no such file or directory"]
    : ["EACCES", -13, "permission denied"];
  return Object.assign(new Error(`${code}: ${reason}, posix_spawn '${command}'`), {
    code,
    errno,
    syscall: "posix_spawn",
    path: command,
  });
}

function exitOf(child: ChildProcess): Promise<number> {
  const { constants } = nodeModule<typeof import("node:os")>("node:os");
  return new Promise((resolve) => {
    child.once("error", () => resolve(child.exitCode ?? 127));
    child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
