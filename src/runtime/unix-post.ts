/**
 * One POST over a unix socket on Bun's socket API, its answer a standard Response whose body streams as it arrives.
 *
 * Why not fetch's `unix` option, as runtime/http.ts's unixFetch: a process's first fetch starts Bun's HTTP client
 * thread, and a daemon-up `fermix ask` makes exactly one request. Measured on the compiled client against a running
 * daemon (issue 31, 21 interleaved runs, 2 runs): ~4.5 ms less CPU and 2-4 ms less wall time with this, the request
 * at the fake provider ~2-3 ms sooner. The request is written on the caller's own event loop, so `sent` says when it
 * has gone and the caller can wait for that before its next synchronous work.
 *
 * The request is HTTP/1.0, so the answer needs no chunked decoding: a server may not use chunked coding towards an
 * HTTP/1.0 client, and Bun.serve (the daemon) then writes a streamed body as it comes and closes the connection at
 * its end; a body with a content-length ends there. An answer in any other transfer coding is refused, not guessed
 * at.
 *
 * It imports nothing at run time: src/cli/ask-early.ts, which sends the entry's plain ask, stays in the binary's
 * entry chunk with it (runtime/entry-probes.ts says why that matters).
 */

/** A request on its way: when it has been handed to the kernel, and its answer. */
export type UnixPost = {
  /** Resolves once the whole request is written; also resolves (and `answer` rejects) when it could not be. */
  sent: Promise<void>;
  /** Rejects when nothing answers, when the connection closes before the answer's head, or on `signal`'s abort. */
  answer: Promise<Response>;
};

/** The most an answer's status line and headers may take: the daemon's are a few hundred bytes. */
const MAX_HEAD_BYTES = 64 * 1024;

export type UnixPostOptions = {
  headers: Readonly<Record<string, string>>;
  body: string;
  signal?: AbortSignal;
  /**
   * The request goes out at once but for its last byte, which waits for this: true sends it, false (or a rejection)
   * abandons the request, `answer` rejecting as aborted. A server reads the head meanwhile (Bun.serve runs its
   * handler up to the body's read), so a caller still deciding whether to send overlaps that with its decision; a
   * body cut short never reaches a handler as a request. Only a body ending in an ASCII character (a JSON object)
   * is held; any other waits whole.
   */
  release?: Promise<boolean>;
};

export function postOverUnixSocket(socket: string, path: string, opts: UnixPostOptions): UnixPost {
  // Written as a string, which the socket encodes: no TextEncoder, whose first use costs a one-shot client ~0.2 ms.
  let request = `POST ${path} HTTP/1.0\r\nhost: fermix\r\n`;
  for (const name in opts.headers) request += `${name}: ${opts.headers[name]}\r\n`;
  const bodyBytes = utf8Length(opts.body);
  request += `content-length: ${bodyBytes}\r\n\r\n${opts.body}`;
  // The head is ASCII: one byte a character.
  const requestBytes = request.length - opts.body.length + bodyBytes;

  const { promise: sent, resolve: markSent } = Promise.withResolvers<void>();
  const { promise: answer, resolve: answerWith, reject: refuse } = Promise.withResolvers<Response>();
  let reader: AnswerReader | undefined;
  let connection: Writable | undefined;
  // What waits for `release`: its last byte, or the whole request when that byte is not ASCII; the rest goes first.
  const heldChars = opts.release === undefined ? 0 : request.charCodeAt(request.length - 1) < 0x80 ? 1 : request.length;
  const heldBytes = heldChars === request.length ? requestBytes : heldChars;
  const first = request.slice(0, request.length - heldChars);
  let held = request.slice(request.length - heldChars);
  // The bytes still to write when the kernel took only part of a write (a large question): they go as it drains.
  let rest: Uint8Array | undefined;
  let released = opts.release === undefined;
  let pending: Uint8Array = new Uint8Array(0);
  let failed = false;
  const fail = (err: unknown) => {
    failed = true;
    markSent();
    if (reader) reader.fail(err);
    else refuse(err);
  };
  const abort = (reason?: unknown) => {
    fail(reason ?? opts.signal?.reason ?? new DOMException("The request was aborted", "AbortError"));
    connection?.end();
  };
  if (opts.signal?.aborted) {
    abort();
    return { sent, answer };
  }
  const onAbort = () => abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  /** Writes what is due: what the kernel did not take yet, then, once released, what was held. */
  const flush = (s: Writable) => {
    if (rest?.length) {
      const written = s.write(rest);
      rest = written > 0 ? rest.subarray(written) : rest;
      if (rest.length) return;
    }
    if (!released || failed) return;
    if (held) {
      writeWhole(s, held, heldBytes);
      held = "";
      if (rest?.length) return;
    }
    markSent();
  };
  /** `text` (`bytes` long) written; what the kernel did not take is kept in `rest`, in bytes. */
  const writeWhole = (s: Writable, text: string, bytes: number) => {
    const written = s.write(text);
    if (written < bytes) rest = new TextEncoder().encode(text).subarray(Math.max(0, written));
  };
  opts.release?.then(
    (go) => {
      if (failed) return;
      if (!go) return abort(new DOMException("The request was abandoned", "AbortError"));
      released = true;
      if (connection) flush(connection);
    },
    () => {
      if (!failed) abort(new DOMException("The request was abandoned", "AbortError"));
    },
  );
  Bun.connect({
    unix: socket,
    socket: {
      open(s) {
        connection = s;
        // Aborted while connecting: nothing is sent.
        if (failed) {
          s.end();
          return;
        }
        writeWhole(s, first, requestBytes - heldBytes);
        flush(s);
      },
      drain(s) {
        flush(s);
      },
      data(s, chunk) {
        if (reader) {
          if (reader.take(chunk)) s.end();
          return;
        }
        const parsed = headOf(chunk, pending);
        if (parsed === "more") {
          pending = concat(pending, chunk);
          if (pending.length > MAX_HEAD_BYTES) {
            fail(new Error(`the answer on ${socket} sent over ${MAX_HEAD_BYTES} bytes without ending its head`));
            s.end();
          }
          return;
        }
        if (parsed instanceof Error) {
          fail(parsed);
          s.end();
          return;
        }
        reader = answerReader(parsed.length, () => s.end());
        answerWith(new Response(reader.stream, { status: parsed.status, headers: parsed.headers }));
        if (reader.take(parsed.rest)) s.end();
      },
      close() {
        opts.signal?.removeEventListener("abort", onAbort);
        if (reader) reader.end();
        // Coded as fetch codes it (ECONNRESET): accepted, then closed, which is not a refused connect.
        else
          fail(
            Object.assign(new Error(`the connection on ${socket} closed before an answer came`), {
              code: "ECONNRESET",
            }),
          );
      },
      error(_s, err) {
        fail(err);
      },
    },
  }).catch(fail);
  return { sent, answer };
}

type Writable = { write(data: string | Uint8Array): number; end(): void };

/** How many bytes `text` takes in UTF-8, as the socket writes it (a lone surrogate as U+FFFD's three). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

type Head = { status: number; headers: Headers; length: number | undefined; rest: Uint8Array };

/** The answer's head from what came so far (`before`) and `chunk`: "more" while its blank line has not come. */
function headOf(chunk: Uint8Array, before: Uint8Array): Head | Error | "more" {
  const bytes = before.length ? concat(before, chunk) : chunk;
  const end = headEnd(bytes);
  if (end < 0) return "more";
  // The head is ASCII (a byte past it would be a malformed header, refused below).
  let text = "";
  for (let i = 0; i < end; i++) text += String.fromCharCode(bytes[i]!);
  const lines = text.split("\r\n");
  const first = lines[0]!;
  const status = Number(first.slice(9, 12));
  const shaped =
    (first.startsWith("HTTP/1.0 ") || first.startsWith("HTTP/1.1 ")) && (first.length === 12 || first[12] === " ");
  if (!shaped || !(status >= 100 && status <= 599)) {
    return new Error(`not an HTTP answer: ${JSON.stringify(first.slice(0, 80))}`);
  }
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    try {
      if (colon <= 0) throw new Error("no name");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      return new Error(`an HTTP answer with a malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    }
  }
  const coding = headers.get("transfer-encoding");
  if (coding && coding.toLowerCase() !== "identity") {
    return new Error(`an answer to an HTTP/1.0 request in transfer coding "${coding}", which it may not use`);
  }
  const declared = headers.get("content-length");
  const length = declared === null ? undefined : Number(declared);
  if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) {
    return new Error(`an HTTP answer with content-length ${JSON.stringify(declared)}`);
  }
  return { status, headers, length, rest: bytes.subarray(end + 4) };
}

/** The answer's body as a stream, as the socket's data arrives. */
type AnswerReader = {
  stream: ReadableStream<Uint8Array>;
  /** Passes `chunk` on (a copy: the socket may reuse its buffer); true once the declared length is complete. */
  take(chunk: Uint8Array): boolean;
  /** The connection closed: the body's end, unless a declared length was still owed. */
  end(): void;
  fail(err: unknown): void;
};

/**
 * Ends at its content-length, or when the connection closes. Closures rather than a class: this module is part of
 * the entry's chunk, whose top level every `fermix --version` runs, and a class is built there (measured: the
 * module with a class and a typed array at its top level cost --version ~0.3 ms).
 */
function answerReader(length: number | undefined, hangUp: () => void): AnswerReader {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let left = length;
  let done = false;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    // The reader gave up on the answer: so does the connection.
    cancel: () => {
      done = true;
      hangUp();
    },
  });
  const end = () => {
    if (done) return;
    done = true;
    if (left) controller.error(new Error(`the connection closed ${left} bytes before the answer's end`));
    else controller.close();
  };
  if (length === 0) end();
  return {
    stream,
    take(chunk) {
      if (done) return true;
      const part = left === undefined ? chunk : chunk.subarray(0, left);
      if (part.length) controller.enqueue(part.slice());
      if (left === undefined) return false;
      left -= part.length;
      if (left > 0) return false;
      end();
      return true;
    },
    end,
    fail(err) {
      if (done) return;
      done = true;
      controller.error(err);
    },
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Where the head's blank line (CR LF CR LF) starts in `bytes`, or -1. */
function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}
