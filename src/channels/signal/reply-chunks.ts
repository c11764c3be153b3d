import { takeChunk } from "../../gateway/streaming/chunk-text.ts";

/**
 * The most one Signal message carries as its body: 2,000 UTF-8 bytes (signal-cli's
 * ServiceConfig.MAX_MESSAGE_SIZE_BYTES, the same cut Signal's apps make). A longer text goes out as a truncated
 * body plus a "long text" attachment, which only recent signal-cli builds (0.13.11+) create and which the phone
 * shows behind "Read more" — so a long answer is sent as several whole messages instead, each within the limit.
 */
export const SIGNAL_BODY_BYTES = 2000;

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/**
 * Plain text as messages of at most `maxBytes` UTF-8 bytes, cut at the best boundary (a paragraph, a line, a
 * sentence, a space) by the gateway's chunker, which counts UTF-16 units: a chunk over the byte limit (text
 * beyond ASCII) is cut again shorter until it fits.
 */
export function signalChunks(text: string, maxBytes: number = SIGNAL_BODY_BYTES): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest) {
    let max = Math.min(rest.length, maxBytes);
    let cut = takeChunk(rest, Math.floor(max / 2), max);
    while (bytes(cut.chunk) > maxBytes && max > 1) {
      // Scale by how far over it is; every unit is at most 3 bytes, so this ends within a few rounds.
      max = Math.max(1, Math.min(max - 1, Math.floor((max * maxBytes) / bytes(cut.chunk))));
      cut = takeChunk(rest, Math.floor(max / 2), max);
    }
    // The text is plain: no fence is ever open across a cut.
    const next = cut.rest.trim();
    if (next === rest) {
      chunks.push(rest); // no cut was possible (cannot happen at Signal's limit); never loop
      break;
    }
    if (cut.chunk.trim()) chunks.push(cut.chunk);
    rest = next;
  }
  return chunks;
}
