import { type ChildProcess, spawn } from "node:child_process";
import {
  deserializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { groupEmptied } from "./child-groups.ts";
import { groupEnded, groupStarted } from "./process-groups.ts";

/** How long a server gets to exit on SIGTERM before its whole group is killed. */
const TERM_GRACE_MS = 1500;
/** The last bytes of stderr kept to explain a failed start; the rest goes to the log only. */
const STDERR_TAIL_BYTES = 2048;

export type ProcessSpec = { command: string; args: string[]; cwd: string; env: Record<string, string> };

export type ProcessTransportOptions = {
  /**
   * The longest stdout line taken (default: the MCP SDK's 10 MiB). A longer one cannot be framed any more: it is
   * reported through onerror and the server is ended (and its supervisor restarts it).
   */
  maxLineBytes?: number;
};

/**
 * A stdio MCP transport whose server runs in its own process group. The SDK's StdioClientTransport cannot do
 * that (and merges the parent's environment in), so a server's helpers would outlive it; here `kill` signals
 * the whole group and resolves only once the server has exited and been reaped.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * A stdout line that is not a JSON-RPC message (not JSON, or failing the SDK's schema: a non-object result, a
   * missing id…), with the raw line, for a caller that must answer it (signal-cli fails the request it belongs to).
   * Unset, the line goes to onerror and is otherwise dropped.
   */
  onunparsed?: (line: string, error: Error) => void;

  private child?: ChildProcess;
  /** The start of a stdout line whose end has not arrived yet. */
  private partial?: Buffer;
  private unframed = false;
  private readonly maxLineBytes: number;
  private exited?: Promise<void>;
  private stderrTail = "";
  private killed?: Promise<void>;
  private exit?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(
    private readonly spec: ProcessSpec,
    private readonly onStderr?: (line: string) => void,
    options: ProcessTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

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
    this.partial = undefined;
  }

  private read(chunk: Buffer): void {
    if (this.unframed) return;
    let buffer = this.partial ? Buffer.concat([this.partial, chunk]) : chunk;
    this.partial = undefined;
    for (;;) {
      const end = buffer.indexOf(0x0a);
      if (end === -1 ? buffer.length > this.maxLineBytes : end > this.maxLineBytes) {
        // One line past the cap: the stream can no longer be framed, so the server is ended, its pending
        // requests failing with its exit, and nothing more of its output is read.
        this.unframed = true;
        this.onerror?.(new Error(`a line of output exceeded the maximum size of ${this.maxLineBytes} bytes`));
        void this.kill();
        return;
      }
      if (end === -1) break;
      const line = buffer.toString("utf8", 0, end).replace(/\r$/, "");
      buffer = buffer.subarray(end + 1);
      if (line.trim()) this.deliver(line);
    }
    if (buffer.length) this.partial = buffer;
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (err) {
      // A line that is not JSON-RPC (a stray console.log) is reported, not fatal.
      if (this.onunparsed) this.onunparsed(line, err as Error);
      else this.onerror?.(err as Error);
      return;
    }
    this.onmessage?.(message);
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
