import { entityCount, entityStarts, type HtmlNode, plainText, renderHtml, safeCut, splitNodes } from "./html-nodes.ts";
import { markdownBlocks } from "./markdown-blocks.ts";

/** A chunk's size, in UTF-16 units of its text after parsing: a phone screen's worth ("card"), far under 4,096. */
export const CHUNK_UNITS = 1400;
/** Telegram keeps at most 100 entities per message; the rest of the room is for those it detects itself (links). */
export const CHUNK_ENTITIES = 90;
/** A fenced code block longer than this goes as a file, not as a run of <pre> chunks. */
export const CODE_FILE_UNITS = 3800;
export const CODE_PLACEHOLDER = "(full code attached as a file)";

export type CodeFile = { filename: string; content: string; caption: string };

export type Chunk = {
  /** parse_mode HTML text. */
  html: string;
  /** The same without tags: the one resend after "can't parse entities". */
  plain: string;
  /** Code blocks cut out of this chunk, sent right after it. */
  files: CodeFile[];
};

type Piece = { nodes: HtmlNode[]; sep: string; files: CodeFile[] };

/** A model's Markdown → the ordered messages Telegram gets. */
export function renderReply(markdown: string): Chunk[] {
  let fileNumber = 0;
  const pieces: Piece[] = markdownBlocks(markdown).map((block) => {
    if (block.code && block.code.content.length > CODE_FILE_UNITS) {
      fileNumber += 1;
      const language = block.code.language;
      return {
        nodes: [CODE_PLACEHOLDER],
        sep: block.sep,
        files: [
          {
            filename: `code-${fileNumber}.txt`,
            content: block.code.content,
            caption: `Code from this reply${language ? ` (${language})` : ""}`,
          },
        ],
      };
    }
    return { nodes: block.nodes, sep: block.sep, files: [] };
  });
  return pack(pieces);
}

function pack(pieces: Piece[]): Chunk[] {
  const chunks: Chunk[] = [];
  let nodes: HtmlNode[] = [];
  let files: CodeFile[] = [];
  let units = 0;
  let entities = 0;
  const flush = () => {
    const plain = plainText(nodes).trim();
    if (plain || files.length) chunks.push({ html: renderHtml(nodes).trim(), plain, files });
    nodes = [];
    files = [];
    units = 0;
    entities = 0;
  };
  for (const piece of pieces) {
    let current = piece.nodes;
    let sep = piece.sep;
    for (;;) {
      const size = plainText(current).length;
      const count = entityCount(current);
      const joiner = units > 0 ? sep : "";
      if (units + joiner.length + size <= CHUNK_UNITS && entities + count <= CHUNK_ENTITIES) {
        if (joiner) nodes.push(joiner);
        nodes.push(...current);
        files.push(...piece.files);
        units += joiner.length + size;
        entities += count;
        break;
      }
      if (units > 0 || files.length) {
        flush();
        continue;
      }
      // Alone and still too big: cut it, the tags around the cut closed and reopened.
      const [head, tail] = splitNodes(current, cutPoint(current));
      nodes = head;
      flush();
      current = tail;
      sep = "";
    }
  }
  flush();
  return chunks;
}

/** Where to cut a block that fits no chunk: the last line break, else the last space, else hard at the limit. */
function cutPoint(nodes: HtmlNode[]): number {
  const plain = plainText(nodes);
  const starts = entityStarts(nodes);
  // Everything opened before the cut is in the head; keep that within the entity budget.
  const byEntities = starts.length > CHUNK_ENTITIES ? starts[CHUNK_ENTITIES]! : plain.length;
  const limit = Math.max(1, Math.min(CHUNK_UNITS, byEntities, plain.length));
  const window = plain.slice(0, limit);
  const newline = window.lastIndexOf("\n") + 1;
  if (newline >= limit / 2) return newline;
  const space = Math.max(window.lastIndexOf(" "), window.lastIndexOf("\t")) + 1;
  if (space >= limit / 4) return space;
  if (newline > 0) return newline;
  return Math.max(1, safeCut(plain, limit));
}
