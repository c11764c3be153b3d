import { concatBytes } from "../runtime/bytes.ts";
/**
 * Splits a child's stdout into JSON values, one a line. A line longer than `maxBytes` is skipped to its end
 * without being held in memory, and it — like a line that is not JSON — counts as a framing error.
 */
export async function readJsonLines(
  stream: ReadableStream<Uint8Array>,
  opts: { maxBytes: number; onValue(value: unknown): void; onFramingError(why: string): void },
): Promise<void> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;
  const endLine = () => {
    if (oversized) opts.onFramingError(`an event longer than ${opts.maxBytes} bytes was skipped`);
    else if (size > 0) {
      const text = decoder.decode(parts.length === 1 ? parts[0]! : concatBytes(parts)).trim();
      if (text) {
        try {
          opts.onValue(JSON.parse(text));
        } catch {
          opts.onFramingError(`a line that is not JSON: ${text.slice(0, 80)}`);
        }
      }
    }
    parts = [];
    size = 0;
    oversized = false;
  };
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let start = 0;
    for (let i = 0; i < value.length; i++) {
      if (value[i] !== 0x0a) continue;
      take(value.subarray(start, i));
      endLine();
      start = i + 1;
    }
    take(value.subarray(start));
  }
  endLine();

  function take(chunk: Uint8Array) {
    if (oversized || chunk.length === 0) return;
    if (size + chunk.length > opts.maxBytes) {
      oversized = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(chunk.slice());
    size += chunk.length;
  }
}
