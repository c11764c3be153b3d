import { spawn } from "node:child_process";
import type { ExecResult } from "./types.ts";

export type ProcessRequest = {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
};

/**
 * Runs one command in its own process group (`detached`), so a timeout, an abort — or the command's
 * own exit — can take every process it started down with one `kill(-pgid)`. Background jobs therefore
 * never outlive their command; that also keeps a stray `sleep &` holding stdout from hanging the call.
 * Output past `maxOutputBytes` per stream is read and dropped (a full pipe would stall the child).
 */
export function runProcess(req: ProcessRequest): Promise<Omit<ExecResult, "isolation">> {
  const stdout = new Capped(req.maxOutputBytes);
  const stderr = new Capped(req.maxOutputBytes);
  const result = (exitCode: number | null, timedOut: boolean) => ({
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut,
    truncated: stdout.truncated || stderr.truncated,
  });
  if (req.signal?.aborted) return Promise.resolve({ ...result(null, false), stderr: "aborted before it started" });

  return new Promise((resolve) => {
    const child = spawn(req.argv[0]!, req.argv.slice(1), {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: [req.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let timedOut = false;
    let settled = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, req.timeoutMs);
    req.signal?.addEventListener("abort", killGroup, { once: true });
    const finish = (value: Omit<ExecResult, "isolation">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", killGroup);
      resolve(value);
    };

    child.stdout!.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.add(chunk));
    if (child.stdin) {
      child.stdin.on("error", () => {}); // EPIPE when the command does not read its input
      child.stdin.end(req.stdin);
    }
    child.on("exit", killGroup);
    child.on("error", (err: NodeJS.ErrnoException) => {
      // The program could not be started (ENOENT, EACCES): report it as a shell would, exit 127.
      stderr.add(Buffer.from(`${req.argv[0]}: ${err.message}\n`));
      finish(result(127, false));
    });
    child.on("close", (code) => finish(result(timedOut ? null : code, timedOut)));
  });
}

class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}

  add(chunk: Buffer) {
    const room = this.cap - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
