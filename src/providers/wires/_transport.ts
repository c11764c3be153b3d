import { createParser, type EventSourceMessage } from "eventsource-parser";
import { readCappedText } from "../../net/read-capped.ts";
import type { WireCall, WireDeps } from "../types.ts";
import { classifyHttpError, fail, WireFailure } from "./_failure.ts";
import { JsonBody } from "./_json-body.ts";

export type SseMessage = { event?: string; data: string };

type VendorErrorExtractor = (body: unknown) => { message?: string; code?: string };

/**
 * The largest one server-sent event may grow (its data; while it is still open, the bytes read since the last
 * event ended, so within one chunk of exact). A Responses image result in base64 is a few MB, and
 * `response.completed` repeats the whole output; past this the stream is cut and the call fails (transient), so a
 * server that never ends an event cannot fill memory. The stream as a whole has no cap: an answer may run long.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;
/** An error answer's body is read this far for its message (of which 300 characters are shown), the rest dropped. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * POSTs a JSON body and yields the answer's Server-Sent Events. The receive timeout is an idle
 * timer: it restarts with every chunk, so a long answer that keeps streaming never trips it,
 * while a server that accepts and then says nothing does.
 */
export async function* postForEvents(
  call: WireCall,
  deps: WireDeps,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  extractError: VendorErrorExtractor,
): AsyncGenerator<SseMessage> {
  const provider = call.target.provider;
  const idle = new AbortController();
  const signal = call.signal ? AbortSignal.any([call.signal, idle.signal]) : idle.signal;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      idle.abort();
    }, call.target.receiveTimeoutMs);
  };
  // Only our own aborts are classified here; any other error falls through to the caller's
  // connection message (rethrowing it made "could not reach" and "broke mid-answer" unreachable).
  const abortFailure = (): void => {
    if (call.signal?.aborted) fail(provider, "cancelled", "cancelled");
    if (timedOut) {
      fail(provider, "transient", `${provider} sent nothing for ${formatDuration(call.target.receiveTimeoutMs)}`);
    }
  };

  arm();
  try {
    let response: Response;
    try {
      response = await deps.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: body instanceof JsonBody ? body.text : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      abortFailure();
      fail(provider, "transient", `could not reach ${provider} at ${originOf(url)}: ${errorText(err)}`);
    }
    arm();
    if (!response.ok) {
      const text = await readCappedText(response, MAX_ERROR_BODY_BYTES);
      const vendor = extractError(safeJson(text));
      // Vendors echo a rejected key back (OpenAI repeats short ones whole); it must not reach logs or the terminal.
      const key = call.target.apiKey;
      if (key && vendor.message) vendor.message = vendor.message.split(key).join("[redacted key]");
      throw new WireFailure(classifyHttpError(provider, response.status, vendor, response.headers, now(deps)));
    }
    if (!response.body) fail(provider, "transient", `${provider} answered with an empty body`);

    const queue: SseMessage[] = [];
    const maxEventBytes = deps.maxEventBytes ?? MAX_EVENT_BYTES;
    // Bytes read since an event (or a comment) last ended: the size of the one being built.
    let open = 0;
    let oversized = false;
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => {
        open = 0;
        // One that began and ended inside a single chunk is measured whole.
        if (Buffer.byteLength(m.data) > maxEventBytes) oversized = true;
        queue.push({ event: m.event, data: m.data });
      },
      onComment: () => {
        open = 0;
      },
    });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      while (true) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          abortFailure();
          fail(provider, "transient", `the connection to ${provider} broke mid-answer: ${errorText(err)}`);
        }
        if (chunk.done) break;
        arm();
        const ended = queue.length;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        // No event ended in this chunk: it all went into the one still open.
        if (queue.length === ended) open += chunk.value.byteLength;
        if (oversized || open > maxEventBytes) {
          fail(
            provider,
            "transient",
            `${provider} sent an event larger than ${maxEventBytes} bytes; the answer was cut there`,
          );
        }
        while (queue.length) {
          yield queue.shift()!;
          // Frames already received keep parsing after an abort; a caller who cancelled gets no `done`.
          if (call.signal?.aborted) fail(provider, "cancelled", "cancelled");
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  } finally {
    clearTimeout(timer);
  }
}

function now(deps: WireDeps): number {
  return deps.now ? deps.now() : Date.now();
}

/** Sub-second timeouts (tests, tight configs) would otherwise read "sent nothing for 0 s". */
function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text ? { error: { message: text.slice(0, 300) } } : undefined;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return (err as { code?: string }).code ?? err.message;
  return String(err);
}

export function parseJsonData(provider: string, data: string): any {
  try {
    return JSON.parse(data);
  } catch {
    fail(provider, "transient", `${provider} sent an event that is not JSON`);
  }
}

/** Tool-call arguments arrive as a JSON string; a model that emits broken JSON gets `{}` plus the raw text. */
export function parseToolArguments(raw: string): Record<string, unknown> {
  if (!raw.trim()) return {};
  try {
    const value = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value) ? value : { value };
  } catch {
    return { _unparsed_arguments: raw };
  }
}
