/**
 * The sandbox's contract with the tools that touch the filesystem or run commands. Every path a tool
 * is given and every command it runs goes through one Sandbox; nothing else decides what is allowed.
 */
export type SandboxMode = "strict" | "standard" | "open";

/** Who is asking, which decides the roots: a local operator's cwd counts in standard mode, nobody else's. */
export type SandboxCaller = {
  trust: "operator" | "guest";
  /** The request came from this machine (the CLI), not from a remote channel or a job. */
  local: boolean;
  /** The caller's working directory, when it has one. */
  cwd?: string;
};

export type Access = "read" | "write";

/** Why a path or command was refused; `outside_roots` is the one the directory-approval loop may offer to fix. */
export type DenialCode =
  | "outside_roots"
  | "protected"
  | "blocked"
  | "symlink"
  | "hardlink"
  | "not_found"
  | "catastrophic"
  | "invalid";

export type Denial = { ok: false; code: DenialCode; reason: string; path?: string };
export type PathVerdict = { ok: true; path: string } | Denial;

export type ExecRequest = {
  /** Run through `/bin/sh -c` when a string, exec'd directly when an argv. */
  command: string | string[];
  cwd: string;
  caller: SandboxCaller;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Extra environment entries beyond the minimal child environment (never secrets by default). */
  env?: Record<string, string>;
  stdin?: string;
};

export type ExecResult = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  /** Which protection wrapped the process. */
  isolation: Isolation;
};

export type Isolation = "bubblewrap" | "sandbox-exec" | "none";

export type SandboxStatus = {
  mode: SandboxMode;
  isolation: Isolation;
  workspaceRoot: string;
  allowedRoots: string[];
  blockedRoots: string[];
  protectedPaths: string[];
};

export interface Sandbox {
  readonly mode: SandboxMode;
  /** The canonical roots this caller may use, workspace first. */
  roots(caller: SandboxCaller): string[];
  /** Canonicalises `path` (relative paths resolve against the caller's cwd, else the workspace) and judges it. */
  checkPath(path: string, access: Access, caller: SandboxCaller): Promise<PathVerdict>;
  /** Reads a file that checkPath allowed, opening the final component without following links. */
  readFile(
    path: string,
    caller: SandboxCaller,
    maxBytes: number,
  ): Promise<{ ok: true; path: string; bytes: Uint8Array; truncated: boolean } | Denial>;
  /** Writes (creating parents inside the roots) without following a link at the final component. */
  writeFile(
    path: string,
    content: string | Uint8Array,
    caller: SandboxCaller,
  ): Promise<{ ok: true; path: string } | Denial>;
  /** Refuses catastrophic commands (rm -rf /, mkfs, fork bombs, …) in every mode. */
  checkCommand(command: string | string[]): { ok: true } | Denial;
  /** Runs a command with a minimal environment inside the roots; kills the whole process group on timeout. */
  exec(request: ExecRequest): Promise<ExecResult | Denial>;
  status(): SandboxStatus;
  /** A person-readable account of how `path` is judged for this caller (fermix sandbox explain). */
  explain(path: string, caller: SandboxCaller): Promise<string>;
  /** Paths that must never be offered through directory approval ($HOME itself, FERMIX_HOME, ~/.ssh, OS roots …). */
  isGrantable(path: string): Promise<{ ok: true; path: string } | Denial>;
}
