import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * The longest line `fermix mcp serve` reads: 10 MiB, the SDK's own stdio default. A longer line gets an
 * Invalid Request answer (id null) as soon as it crosses the limit, and the rest of it is skipped unread up to
 * its newline, where reading goes on — so memory stays bounded and the stream always resynchronises.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

type Listener = (...args: any[]) => void;

/** What the transport uses of stdin and stdout (tests hand in their own). */
export type LineStreams = {
  input: {
    on(event: string, listener: Listener): unknown;
    off(event: string, listener: Listener): unknown;
    pause(): unknown;
    listenerCount(event: string): number;
  };
  output: { write(text: string): boolean; once(event: "drain", listener: () => void): unknown };
  /** Tests pass a small one; never above MAX_LINE_BYTES. */
  maxLineBytes?: number;
};

type ErrorAnswer = { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } };

const NEWLINE = 0x0a;

/**
 * A newline-delimited JSON-RPC transport for the MCP server on stdin/stdout. Not the SDK's StdioServerTransport,
 * because on a bad line that one breaks JSON-RPC 2.0 (§5.1) and the stream: a line that is not JSON or not a
 * JSON-RPC message is dropped with no answer (the spec wants -32700 Parse error / -32600 Invalid Request with id
 * null), and a buffer over its 10 MiB closes the transport, so the server ended with exit code 0 and no word
 * anywhere. Here each bad line is answered and reading goes on with the next one.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxLineBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line that went over the limit: its bytes are dropped until its newline. */
  private skipping = false;
  private started = false;

  constructor(private readonly streams: LineStreams) {
    this.maxLineBytes = Math.min(streams.maxLineBytes ?? MAX_LINE_BYTES, MAX_LINE_BYTES);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("the stdio transport is already started");
    this.started = true;
    this.streams.input.on("data", this.onData);
    this.streams.input.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    this.streams.input.off("data", this.onData);
    this.streams.input.off("error", this.onStreamError);
    if (this.streams.input.listenerCount("data") === 0) this.streams.input.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }

  private readonly onStreamError = (err: Error) => this.onerror?.(err);

  private readonly onData = (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!this.skipping) this.keep(chunk.subarray(start, end));
      if (newline < 0) return;
      start = newline + 1;
      if (this.skipping) this.skipping = false;
      else this.lineEnded();
    }
  };

  private keep(piece: Buffer): void {
    if (this.pendingBytes + piece.length <= this.maxLineBytes) {
      if (piece.length) this.pending.push(piece);
      this.pendingBytes += piece.length;
      return;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = true;
    const message = `Invalid Request: a message longer than ${this.maxLineBytes} bytes was skipped`;
    this.onerror?.(new Error(message));
    void this.answer(null, ErrorCode.InvalidRequest, message);
  }

  private lineEnded(): void {
    const line = Buffer.concat(this.pending, this.pendingBytes).toString("utf8");
    this.pending = [];
    this.pendingBytes = 0;
    // A blank line (or a CRLF's lone \r) is framing, not a message.
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.onerror?.(new Error("Parse error: a line that is not JSON"));
      void this.answer(null, ErrorCode.ParseError, "Parse error: the line is not JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.onerror?.(new Error("Invalid Request: a JSON line that is not a JSON-RPC 2.0 message"));
      // A malformed answer to one of our requests is not a request: answering it would start a loop.
      if (!looksLikeResponse(raw)) void this.answer(idOf(raw), ErrorCode.InvalidRequest, "Invalid Request");
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  private answer(id: string | number | null, code: number, message: string): Promise<void> {
    return this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private write(message: JSONRPCMessage | ErrorAnswer): Promise<void> {
    return new Promise((resolve) => {
      if (this.streams.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.streams.output.once("drain", resolve);
    });
  }
}

/** The request's id when it has a usable one (JSON-RPC 2.0 §5: null when it cannot be told). */
function idOf(raw: unknown): string | number | null {
  const id = isObject(raw) ? raw.id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function looksLikeResponse(raw: unknown): boolean {
  return isObject(raw) && !("method" in raw) && ("result" in raw || "error" in raw);
}

function isObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw);
}
