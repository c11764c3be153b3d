import type { Env } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { spawn } from "../runtime/processes.ts";

/** A config check that has not answered by then is a binary that cannot be trusted to start. */
const CHECK_TIMEOUT_MS = 10_000;
/** The CLI's exit code for a usage error (src/cli/exit.ts): what a release from before `check-config` answers. */
const EXIT_USAGE = 2;

/**
 * `<binary> check-config` for this env's FERMIX_HOME: the config check of the daemon that binary starts. Run as
 * that binary, not in this process, because a new release reads config.toml with its own schema (a key it added,
 * one it dropped). "checked" when it would start; throws its sentence (config_invalid) when it would not. A
 * release from before the check cannot say ("unchecked"): its start is still watched by the health wait and
 * undone by the rollback.
 */
export async function checkConfigWith(binary: string, env: Env): Promise<"checked" | "unchecked"> {
  const home = resolveHome(env);
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  const child = spawn([binary, "check-config"], {
    env: { ...childEnv, FERMIX_HOME: home },
    cwd: "/",
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    timeout: CHECK_TIMEOUT_MS,
  });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code === 0) return "checked";
  if (code === EXIT_USAGE && /unknown command: check-config/.test(stderr)) return "unchecked";
  const said = stderr
    .trim()
    .split("\n")[0]
    ?.replace(/^fermix: /, "");
  throw new FermixError("config_invalid", said || `${binary} check-config ended with code ${code} and said nothing`, {
    file: fermixPaths(home).config,
  });
}
