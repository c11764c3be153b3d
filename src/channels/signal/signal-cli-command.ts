import type { ProcessSpec } from "../../plugins/mcp-rail/process-transport.ts";
import { spawnSync, which } from "../../runtime/processes.ts";

export const DEFAULT_CLI_PATH = "signal-cli";

export const INSTALL_HINT =
  "install signal-cli (https://github.com/AsamK/signal-cli#installation — `brew install signal-cli` on macOS; on Linux the release tarball, native or with Java 25), register or link the account in it, then `fermix setup --channel signal` (set cli_path in [fermix_channels.signal] if it is not on PATH)";

/**
 * What signal-cli's environment holds: built from nothing, as an MCP server's is, so provider keys in the daemon's
 * environment never reach it. It needs a PATH and HOME (its data), Java's settings, and the locale for its output.
 */
const PASSED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "XDG_RUNTIME_DIR",
  "JAVA_HOME",
  "JAVA_OPTS",
  "SIGNAL_CLI_OPTS",
] as const;

export type SignalCliOptions = {
  cliPath: string;
  account: string;
  /** --config DIR; signal-cli's own default otherwise. */
  dataDir?: string;
  env: Readonly<Record<string, string | undefined>>;
};

/** The executable cli_path names (a path, or a name looked up on the daemon's PATH), or null. */
export function findSignalCli(cliPath: string, env: Readonly<Record<string, string | undefined>>): string | null {
  return which(cliPath, { PATH: env.PATH ?? "" });
}

function childEnv(env: SignalCliOptions["env"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Global options go before the command (signal-cli's parser reads `-a` after it as something else). */
function globalArgs(opts: Pick<SignalCliOptions, "dataDir">): string[] {
  return opts.dataDir ? ["--config", opts.dataDir] : [];
}

/** `signal-cli [--config DIR] -a ACCOUNT jsonRpc`, or why it cannot run (not found: the install hint). */
export function jsonRpcSpec(opts: SignalCliOptions): ProcessSpec | string {
  const command = findSignalCli(opts.cliPath, opts.env);
  if (!command) return notFound(opts.cliPath);
  return {
    command,
    args: [...globalArgs(opts), "-a", opts.account, "jsonRpc"],
    cwd: opts.env.HOME || "/",
    env: childEnv(opts.env),
  };
}

export function notFound(cliPath: string): string {
  return cliPath.includes("/")
    ? `signal-cli is not at ${cliPath} (cli_path), or is not executable`
    : `${cliPath} is not on PATH`;
}

/**
 * The most of listAccounts' output read (a line per account: a few hundred bytes). Past it signal-cli is ended
 * and the answer refused unparsed, saying so.
 */
const LIST_ACCOUNTS_MAX_BYTES = 1024 * 1024;

/**
 * The accounts registered or linked in this signal-cli (`-o json listAccounts`: [{"number":"+1…"}]), read
 * from its local files without reaching Signal. Setup runs it once to check the account is there.
 */
export function listAccounts(
  opts: Omit<SignalCliOptions, "account">,
  timeoutMs = 60_000,
): { ok: true; accounts: string[] } | { ok: false; detail: string } {
  const command = findSignalCli(opts.cliPath, opts.env);
  if (!command) return { ok: false, detail: notFound(opts.cliPath) };
  let result: ReturnType<typeof spawnSync>;
  try {
    result = spawnSync([command, ...globalArgs(opts), "-o", "json", "listAccounts"], {
      env: childEnv(opts.env),
      cwd: opts.env.HOME || "/",
      stdout: "pipe",
      stderr: "pipe",
      timeout: timeoutMs,
      maxBuffer: LIST_ACCOUNTS_MAX_BYTES,
    });
  } catch (err) {
    return { ok: false, detail: `could not run ${command}: ${(err as Error).message}` };
  }
  if (result.overflowed) {
    return { ok: false, detail: `${command} listAccounts wrote more than ${LIST_ACCOUNTS_MAX_BYTES} bytes; not read` };
  }
  if (result.exitCode !== 0) {
    const said = result.stderr.trim().split("\n").at(-1) ?? "";
    return {
      ok: false,
      detail: `${command} listAccounts ${result.exitCode === null ? `gave no answer within ${timeoutMs / 1000} s` : `failed (exit ${result.exitCode})`}${said ? `: ${said}` : ""}`,
    };
  }
  try {
    const listed = JSON.parse(result.stdout) as Array<{ number?: unknown }>;
    return { ok: true, accounts: listed.map((a) => a.number).filter((n): n is string => typeof n === "string") };
  } catch {
    return { ok: false, detail: `${command} listAccounts did not answer in JSON (is it signal-cli?)` };
  }
}
