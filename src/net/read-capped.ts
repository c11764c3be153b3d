/**
 * Reads a response body up to `maxBytes`, stopping the stream there instead of buffering the rest: a server that
 * sends forever costs us `maxBytes` and no more.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (response.body === null) return { body: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { body, truncated };
}

/**
 * An error body's text for a message, read up to `maxBytes` (default 64 KiB) and cut there: only its first
 * few hundred characters are ever shown, so a peer that answers an error with an endless body costs no more.
 */
export async function readCappedText(response: Response, maxBytes = 64 * 1024): Promise<string> {
  try {
    return new TextDecoder().decode((await readCapped(response, maxBytes)).body);
  } catch {
    return "";
  }
}

/**
 * The same response with its body capped, for a library that reads the body itself (`text()`, `json()`): a
 * declared Content-Length past `maxBytes` fails the read at once, and the stream fails with `tooLarge()` as soon
 * as it passes `maxBytes`, so the library's read rejects instead of buffering the rest.
 */
export function capResponse(response: Response, maxBytes: number, tooLarge: () => Error): Response {
  if (response.body === null) return response;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      if (declared > maxBytes) controller.error(tooLarge());
    },
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size <= maxBytes) controller.enqueue(chunk);
      else controller.error(tooLarge());
    },
  });
  const capped = new Response(response.body.pipeThrough(limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Libraries read `url` (the Slack SDK matches a method by it); a constructed Response has none of its own.
  Object.defineProperty(capped, "url", { value: response.url });
  return capped;
}
