import { type StyledBlock, styleBlocks } from "./whatsapp-styling.ts";

/** The Cloud API refuses a text body longer than this. */
export const WHATSAPP_TEXT_LIMIT = 4096;

/**
 * A reply as the WhatsApp messages it becomes, measured after styling (UTF-16 units, never fewer than WhatsApp's
 * characters): whole blocks a blank line apart while they fit; a block longer than a message is cut between lines
 * (a code block closed and opened again around the cut), else at a sentence, else at a space.
 */
export function replyChunks(markdown: string, limit = WHATSAPP_TEXT_LIMIT): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const block of styleBlocks(markdown)) {
    for (const piece of fitBlock(block, limit)) {
      if (current && current.length + 2 + piece.length <= limit) current = `${current}\n\n${piece}`;
      else {
        if (current) chunks.push(current);
        current = piece;
      }
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

function fitBlock(block: StyledBlock, limit: number): string[] {
  if (block.text.length <= limit) return [block.text];
  if (!block.code) return cutText(block.text, limit);
  // A code block: its lines regrouped into blocks that each fit with their fences.
  const open = "```\n";
  const close = "\n```";
  const room = limit - open.length - close.length;
  const lines = block.text.slice(open.length, -close.length).split("\n");
  const pieces: string[] = [];
  let body: string[] = [];
  let size = 0;
  const push = () => {
    if (body.length) pieces.push(`${open}${body.join("\n")}${close}`);
    body = [];
    size = 0;
  };
  for (const line of lines) {
    for (const part of line.length > room ? cutText(line, room) : [line]) {
      if (body.length && size + 1 + part.length > room) push();
      size += (body.length ? 1 : 0) + part.length;
      body.push(part);
    }
  }
  push();
  return pieces;
}

/** Plain text cut at the best place before `limit`: a line end, a sentence end, a space, else anywhere. */
function cutText(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const head = rest.slice(0, limit);
    const floor = Math.floor(limit / 2);
    let at = head.lastIndexOf("\n");
    if (at < floor) at = Math.max(head.lastIndexOf(". "), head.lastIndexOf("! "), head.lastIndexOf("? ")) + 1;
    if (at < floor) at = head.lastIndexOf(" ");
    if (at < floor) at = limit;
    // Never between the two halves of a surrogate pair.
    if (/[\uD800-\uDBFF]/.test(rest[at - 1] ?? "")) at -= 1;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).replace(/^\s+/, "");
  }
  if (rest) out.push(rest);
  return out;
}
