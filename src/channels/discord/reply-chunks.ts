import { takeChunk } from "../../gateway/streaming/chunk-text.ts";

/** Discord refuses a message whose content is over 2,000 characters, counted as Unicode code points. */
export const MAX_CODEPOINTS = 2000;
/** Room kept for the fence a cut inside a code block closes (and the next chunk reopens). */
const FENCE_ROOM = 16;

/**
 * A model's Markdown as Discord messages: Discord renders Markdown itself, so the text goes as written, cut into
 * chunks of at most 2,000 code points — at a paragraph, else a line, else a sentence or a space, with a code
 * block cut in two closed and reopened with its language.
 */
export function splitReply(markdown: string): string[] {
  const chunks: string[] = [];
  let rest = markdown.trim();
  while (rest) {
    if (codepoints(rest) <= MAX_CODEPOINTS) {
      chunks.push(rest);
      break;
    }
    const max = unitsFor(rest, MAX_CODEPOINTS - FENCE_ROOM);
    const cut = takeChunk(rest, Math.floor(max / 2), max);
    if (!cut.chunk.trim() || codepoints(cut.chunk) > MAX_CODEPOINTS) {
      // A fence opener longer than the room: cut hard, as plain text.
      const at = unitsFor(rest, MAX_CODEPOINTS);
      chunks.push(rest.slice(0, at));
      rest = rest.slice(at).trim();
      continue;
    }
    chunks.push(cut.chunk);
    rest = (cut.open && cut.rest.trim() ? `${cut.open.opener}\n${cut.rest}` : cut.rest).trim();
  }
  return chunks;
}

export function codepoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The UTF-16 length of the first `n` code points of `text` (all of it when it has fewer). */
export function unitsFor(text: string, n: number): number {
  let units = 0;
  let count = 0;
  for (const char of text) {
    if (count === n) break;
    units += char.length;
    count++;
  }
  return units;
}
