import type { Env } from "../config/env.ts";
import { FermixError } from "../error.ts";
import { spawn, which } from "../runtime/processes.ts";
import type { ServiceTarget } from "./service-target.ts";

export type CommandResult = { code: number; stdout: string; stderr: string };
/** Runs argv (argv[0] looked up on the PATH of the manager's env) and collects its output. */
export type CommandRunner = (argv: string[]) => Promise<CommandResult>;

export function commandRunner(env: Env): CommandRunner {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  return async (argv) => {
    const [name, ...args] = argv;
    const exe = which(name!, { PATH: clean.PATH ?? "" });
    if (!exe)
      throw new FermixError(
        "service_manager_missing",
        `${name} was not found on PATH; fermix needs it to manage the service`,
      );
    const proc = spawn([exe, ...args], { env: clean, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    return { code, stdout, stderr };
  };
}

/** Runs a manager command that must succeed. */
export async function mustRun(run: CommandRunner, target: ServiceTarget, argv: string[]): Promise<CommandResult> {
  const result = await run(argv);
  if (result.code !== 0) throw commandFailed(target, argv, result);
  return result;
}

export function commandFailed(target: ServiceTarget, argv: string[], result: CommandResult): FermixError {
  const said = (result.stderr.trim() || result.stdout.trim()).split("\n")[0] ?? "";
  let message = `\`${argv.join(" ")}\` failed (exit ${result.code})${said ? `: ${said}` : ""}`;
  if (target.scope === "system" && /access denied|authentication|not permitted|permission/i.test(said)) {
    message += "; the system service needs root: run it with sudo";
  } else if (/failed to connect to bus|no medium found/i.test(said)) {
    message += "; there is no systemd user session here (log in through a session, or use --system)";
  }
  return new FermixError("service_command_failed", message, { argv, exit: result.code });
}
