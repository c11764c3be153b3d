import { groupEmptied } from "../plugins/mcp-rail/child-groups.ts";
import { groupEnded, groupStarted } from "../plugins/mcp-rail/process-groups.ts";
import { spawn } from "../runtime/processes.ts";

/** SIGTERM first, so a CLI can save its session; what is still there after this gets SIGKILL. */
const TERM_GRACE_MS = 3_000;
const STDERR_TAIL = 4_000;

export type VendorProcess = {
  pid: number;
  stdout: ReadableStream<Uint8Array>;
  /** The exit code (128 + signal when killed), once the leader exited and its group is gone. */
  exited: Promise<number>;
  /** The last few KB the CLI wrote to stderr (its own error messages). */
  stderrTail(): string;
  /** Ends the whole process group: SIGTERM, then SIGKILL after a grace; resolves once it is empty. */
  stop(): Promise<void>;
};

/**
 * Starts a vendor CLI as the leader of its own process group, registered with the process-wide group list: the
 * daemon's exit kills it, and the child-group record lets the next daemon reap it after a SIGKILL.
 */
export function startVendorProcess(argv: string[], opts: { cwd: string; env: Record<string, string> }): VendorProcess {
  const child = spawn(argv, {
    cwd: opts.cwd,
    env: opts.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  const pid = child.pid;
  groupStarted(pid, `${argv[0]} (coding harness)`);
  let tail = "";
  void (async () => {
    if (!child.stderr) return;
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL);
    }
  })().catch(() => {});
  let stopping: Promise<void> | undefined;
  const stopGroup = () =>
    (stopping ??= (async () => {
      if (signal(-pid, "SIGTERM")) {
        if (!(await groupEmptied(pid, TERM_GRACE_MS))) {
          signal(-pid, "SIGKILL");
          await groupEmptied(pid);
        }
      }
      groupEnded(pid);
    })());
  const exited = child.exited.then(async (code) => {
    // Helpers the CLI left behind go with it: the group is the run.
    await stopGroup();
    return code;
  });
  return {
    pid,
    stdout: child.stdout ?? new ReadableStream({ start: (c) => c.close() }),
    exited,
    stderrTail: () => tail.trim(),
    stop: async () => {
      await stopGroup();
      await exited;
    },
  };
}

/** Signals a process group; false when nobody is left in it. */
function signal(target: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(target, sig);
    return true;
  } catch {
    return false;
  }
}
