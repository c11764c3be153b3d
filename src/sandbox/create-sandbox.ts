import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type Env, processEnv } from "../config/env.ts";
import { fermixPaths } from "../config/paths.ts";
import { which as findOnPath } from "../runtime/processes.ts";
import { buildContext, type SandboxConfig } from "./_context.ts";
import { isWithin } from "./_path.ts";
import { bubblewrapArgv, planBubblewrap } from "./bubblewrap.ts";
import { childEnv } from "./child-env.ts";
import { checkCommand } from "./commands.ts";
import { explainPath } from "./explain.ts";
import { judgeGrant } from "./grantable.ts";
import { detectIsolation, type IsolationInfo } from "./isolation.ts";
import { judgePath } from "./path-guard.ts";
import { callerRoots } from "./roots.ts";
import { readNoFollow, writeNoFollow } from "./safe-io.ts";
import type { SandboxContext } from "./sandbox-context.ts";
import { seatbeltArgv, seatbeltProfile } from "./seatbelt.ts";
import type { Denial, ExecRequest, ExecResult, Sandbox, SandboxCaller } from "./types.ts";

export { SandboxConfigInvalid } from "./_context.ts";

export type SandboxDeps = {
  /** The OS home ($HOME) that protected paths and `open` mode key off. */
  userHome: string;
  fermixHome: string;
  /** The [sandbox] table; undefined when config.toml has none. */
  config: SandboxConfig | undefined;
  platform?: NodeJS.Platform;
  /** Finds bwrap / sandbox-exec; tests pass `() => null` to force running without isolation. */
  which?: (cmd: string) => string | null;
  env?: Env;
};

/**
 * The one place that decides what tools may touch. Throws SandboxConfigInvalid for a [sandbox] table
 * that names an impossible root; everything after that returns verdicts instead of throwing.
 */
export function createSandbox(deps: SandboxDeps): Sandbox {
  const platform = deps.platform ?? process.platform;
  const which = deps.which ?? ((cmd: string) => findOnPath(cmd));
  const env = deps.env ?? processEnv();
  const ctx = buildContext({
    userHome: deps.userHome,
    fermixHome: deps.fermixHome,
    config: deps.config,
    configFile: fermixPaths(deps.fermixHome).config,
  });
  let isolation: IsolationInfo | undefined;
  const currentIsolation = () => {
    isolation ??= detectIsolation({ platform, which });
    return isolation;
  };
  let workspaceReady = false;
  // Created on first use, not at construction: `fermix --version` must not create directories.
  const ensureWorkspace = () => {
    if (workspaceReady) return;
    mkdirSync(ctx.workspace, { recursive: true, mode: 0o700 });
    workspaceReady = true;
  };

  return {
    mode: ctx.mode,
    roots: (caller) => callerRoots(ctx, caller),
    async checkPath(path, access, caller) {
      ensureWorkspace();
      return judgePath(ctx, path, access, caller).verdict;
    },
    async readFile(path, caller, maxBytes) {
      ensureWorkspace();
      const { verdict, resolved } = judgePath(ctx, path, "read", caller);
      if (!verdict.ok) return verdict;
      if (resolved?.stat?.isDirectory()) return invalid(`${verdict.path} is a directory, not a file.`, verdict.path);
      const read = await readNoFollow(verdict.path, maxBytes);
      return read.ok ? { ...read, path: verdict.path } : read;
    },
    async writeFile(path, content, caller) {
      ensureWorkspace();
      const first = judgePath(ctx, path, "write", caller);
      if (!first.verdict.ok) return first.verdict;
      if (first.resolved?.firstMissing) createParents(first.resolved.firstMissing, dirname(first.verdict.path));
      // Judged again after creating the parents: what the write opens must be what was approved.
      const second = judgePath(ctx, path, "write", caller).verdict;
      if (!second.ok) return second;
      if (second.path !== first.verdict.path) {
        return { ok: false, code: "symlink", path: second.path, reason: `${path} changed while it was being written.` };
      }
      const written = await writeNoFollow(second.path, content);
      return written.ok ? { ok: true, path: second.path } : written;
    },
    checkCommand: (command) => checkCommand(command, { home: ctx.home, fermixHome: ctx.fermixHome }),
    async exec(request) {
      ensureWorkspace();
      return execute(ctx, request, platform, env, currentIsolation());
    },
    status: () => ({
      mode: ctx.mode,
      isolation: currentIsolation().isolation,
      workspaceRoot: ctx.workspace,
      allowedRoots: [...ctx.granted],
      blockedRoots: [...ctx.blocked],
      protectedPaths: [...ctx.protected.list],
    }),
    async explain(path, caller) {
      ensureWorkspace();
      return explainPath(ctx, path, caller, currentIsolation());
    },
    async isGrantable(path) {
      return judgeGrant(ctx, path, { requireDirectory: true });
    },
  };
}

async function execute(
  ctx: SandboxContext,
  request: ExecRequest,
  platform: NodeJS.Platform,
  env: Env,
  isolation: IsolationInfo,
): Promise<ExecResult | Denial> {
  const command = checkCommand(request.command, { home: ctx.home, fermixHome: ctx.fermixHome });
  if (!command.ok) return command;
  const argv = typeof request.command === "string" ? ["/bin/sh", "-c", request.command] : request.command;
  if (argv.length === 0 || !argv[0]) return invalid("the command is empty.");
  if (!(request.timeoutMs > 0) || !(request.maxOutputBytes >= 0)) {
    return invalid("timeoutMs must be positive and maxOutputBytes not negative.");
  }
  const cwd = judgePath(ctx, request.cwd, "read", request.caller);
  if (!cwd.verdict.ok) return cwd.verdict;
  if (!cwd.resolved?.stat?.isDirectory()) return invalid(`${cwd.verdict.path} is not a directory.`, cwd.verdict.path);

  const tmpdir = platform === "darwin" ? (env.TMPDIR ?? "/tmp") : "/tmp";
  const childEnvironment = childEnv({ home: ctx.home, platform, tmpdir, extra: request.env });
  const wrapped = wrap(ctx, request.caller, isolation, cwd.verdict.path, argv, tmpdir);
  // Loaded when a command first runs: node:child_process costs start-up that most asks never need.
  const { runProcess } = await import("./exec.ts");
  const result = await runProcess({
    argv: wrapped,
    cwd: cwd.verdict.path,
    env: childEnvironment,
    stdin: request.stdin,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    signal: request.signal,
  });
  return { ...result, isolation: isolation.isolation };
}

function wrap(
  ctx: SandboxContext,
  caller: SandboxCaller,
  isolation: IsolationInfo,
  cwd: string,
  argv: string[],
  tmpdir: string,
): string[] {
  if (isolation.isolation === "none" || !isolation.binary) return argv;
  const roots = callerRoots(ctx, caller);
  const denied = [...ctx.protected.homeEntries, ctx.fermixHome, ...ctx.blocked];
  if (isolation.isolation === "bubblewrap") {
    const isDenied = (p: string) => ctx.protected.check(p, false) !== null || ctx.blocked.some((b) => isWithin(p, b));
    return bubblewrapArgv(isolation.binary, planBubblewrap({ roots, denied, isDenied }), cwd, argv);
  }
  const profile = seatbeltProfile({
    writable: [...roots, tmpdir, "/private/tmp"],
    denied: [...ctx.protected.homeEntries, ...ctx.blocked],
    fermixHome: ctx.fermixHome,
    fermixWorkspace: ctx.defaultWorkspace,
  });
  return seatbeltArgv(isolation.binary, profile, argv);
}

/** mkdir for each missing directory from `first` down to `last`, one level at a time (no -p past the roots). */
function createParents(first: string, last: string) {
  if (!isWithin(last, first)) return;
  const chain: string[] = [];
  for (let dir = last; isWithin(dir, first) && dir !== "/"; dir = dirname(dir)) chain.unshift(dir);
  for (const dir of chain) {
    try {
      mkdirSync(dir);
    } catch (err: any) {
      if (err?.code !== "EEXIST") throw err;
    }
  }
}

function invalid(reason: string, path?: string): Denial {
  return { ok: false, code: "invalid", reason, path };
}
