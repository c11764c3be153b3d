import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { groupEmptied } from "./child-groups.ts";
import { groupEnded, groupStarted } from "./process-groups.ts";

/** How long a server gets to exit on SIGTERM before its whole group is killed. */
const TERM_GRACE_MS = 1500;
/** The last bytes of stderr kept to explain a failed start; the rest goes to the log only. */
const STDERR_TAIL_BYTES = 2048;

export type ProcessSpec = { command: string; args: string[]; cwd: string; env: Record<string, string> };

/**
 * A stdio MCP transport whose server runs in its own process group. The SDK's StdioClientTransport cannot do
 * that (and merges the parent's environment in), so a server's helpers would outlive it; here `kill` signals
 * the whole group and resolves only once the server has exited and been reaped.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private exited?: Promise<void>;
  private stderrTail = "";
  private killed?: Promise<void>;
  private exit?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(
    private readonly spec: ProcessSpec,
    private readonly onStderr?: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Recent stderr output, for the reason given when discovery fails. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  /** How the server ended, once it has: its exit code, or the signal that ended it. */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exit;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("transport already started");
    return new Promise((resolve, reject) => {
      // detached puts the server at the head of a new process group, so one signal reaches all it spawned.
      const child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: this.spec.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
      });
      this.child = child;
      // Known at once, not on the "spawn" event: an exit in between must still find (and kill) this group.
      if (child.pid) groupStarted(child.pid, [this.spec.command, ...this.spec.args].join(" "));
      this.exited = new Promise((done) =>
        child.once("exit", (code, sig) => {
          this.exit = { code, signal: sig };
          done();
        }),
      );
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => resolve());
      child.once("exit", () => this.onclose?.());
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => this.keepStderr(chunk.toString("utf8")));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.child?.exitCode !== null) return Promise.reject(new Error("not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  close(): Promise<void> {
    return this.kill();
  }

  /** Ends the server and everything in its process group; resolves once the server has exited. */
  kill(): Promise<void> {
    // Signal once: a group id signalled long after the group emptied could by then name someone else's group.
    if (!this.child?.pid) return Promise.resolve();
    this.killed ??= this.killGroup();
    return this.killed;
  }

  private async killGroup(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.exited) return;
    const group = -child.pid;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      signal(group, "SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((done) => {
        timer = setTimeout(done, TERM_GRACE_MS);
      });
      await Promise.race([this.exited, grace]);
      clearTimeout(timer);
    }
    // Helpers that ignored SIGTERM, or outlived a server that crashed, go too — and are gone when this
    // resolves, so `fermix stop` returns with nothing of ours left running.
    signal(group, "SIGKILL");
    await this.exited;
    await groupEmptied(child.pid);
    groupEnded(child.pid);
    this.buffer.clear();
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (err) {
      // One message past the buffer cap: the stream can no longer be framed, so the server is ended.
      this.onerror?.(err as Error);
      void this.kill();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        // A line that is not JSON-RPC (a stray console.log) is reported, not fatal.
        this.onerror?.(err as Error);
        continue;
      }
      if (!message) return;
      this.onmessage?.(message);
    }
  }

  private keepStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
    if (this.onStderr) for (const line of text.split("\n")) if (line.trim()) this.onStderr(line);
  }
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // ESRCH: the group is already empty.
  }
}
