/** Small building blocks every fake wire needs: ids, splitting, JSON and SSE bodies, a clean cut. */

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";

function randomChars(alphabet: string, length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** Vendor-looking ids: `resp_<hex>`, `call_<alnum>`, `toolu_01<alnum>`, `chatcmpl-<alnum>`… */
export const ids = {
  hex: (prefix: string, length: number) => prefix + randomChars(HEX, length),
  alnum: (prefix: string, length: number) => prefix + randomChars(ALNUM, length),
};

/** Splits into about `parts` non-empty pieces on code-point boundaries (never halves an emoji). */
export function splitEven(text: string, parts = 3): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / Math.min(parts, chars.length));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Deterministic, plausible token counts (~4 characters a token) so usage is never zero. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** One SSE frame. `event` is omitted for wires (Chat Completions) whose frames are data-only. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/**
 * How long a cut stream lingers after its last frame before the socket is reset. Bun's server writes
 * the frames asynchronously; resetting in the same tick can drop bytes already enqueued, and then the
 * client would see a bare connection error instead of "some deltas, then a broken stream".
 */
const CUT_GRACE_MS = 25;

/**
 * A body that writes each piece as its own chunk (so clients see separate reads, like real token
 * streams) and then either ends cleanly or, with `cut`, resets the connection with no terminal event.
 * Erroring the body stream makes Bun abort the socket mid-chunked-body: the client's read rejects
 * (ECONNRESET) instead of ending quietly. The error value is `undefined` on purpose: Bun logs a
 * stack trace for an Error reason, which would read like a test failure.
 */
export function streamedBody(pieces: string[], opts: { cut?: boolean } = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const queue = [...pieces];
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = queue.shift();
        if (next !== undefined) {
          controller.enqueue(encoder.encode(next));
          return;
        }
        if (!opts.cut) {
          controller.close();
          return;
        }
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            controller.error(undefined);
            resolve();
          }, CUT_GRACE_MS),
        );
      },
    },
    { highWaterMark: 0 },
  );
}

export function sseResponse(frames: string[], opts: { cut?: boolean; headers?: Record<string, string> } = {}) {
  return new Response(streamedBody(frames, opts), {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...opts.headers,
    },
  });
}

/** A non-streamed 200 whose JSON body stops halfway and then the connection resets. */
export function cutJsonResponse(body: unknown, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  return new Response(streamedBody([text.slice(0, Math.floor(text.length / 2))], { cut: true }), {
    status: 200,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Masks a key the way OpenAI echoes it in "Incorrect API key provided: sk-ab*****wxyz". */
export function maskKey(key: string): string {
  if (key.length <= 8) return key;
  return `${key.slice(0, 3)}${"*".repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}`;
}

/** The bearer token from an Authorization header, or undefined when absent or not Bearer. */
export function bearerToken(headers: Record<string, string>): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return match?.[1]?.trim();
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
