import { type HtmlNode, plainText } from "./html-nodes.ts";
import { parseInline } from "./inline-markdown.ts";

/** One block of a reply: its nodes and what separates it from the block before. */
export type Block = {
  nodes: HtmlNode[];
  /** "" for the first block, "\n" between items of one list, "\n\n" otherwise. */
  sep: string;
  /** A fenced code block, kept raw so a long one can be sent as a file instead. */
  code?: { content: string; language?: string };
};

// A quote longer than this is sent collapsed (<blockquote expandable>).
const QUOTE_EXPAND_LINES = 3;
const QUOTE_EXPAND_CHARS = 400;
const RULE = "──────────";

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const ATX = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const HR = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^\s{0,3}>/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const SETEXT = /^ {0,3}=+\s*$/;

/**
 * Markdown blocks → Telegram HTML blocks: headings become bold lines, bullets "• ", numbered items keep their
 * numbers, quotes <blockquote> (expandable when long), fenced code <pre> with its language, pipe tables an aligned
 * <pre>, rules a line. Single line breaks are kept (chat text is written line by line); never a <br>.
 */
export function markdownBlocks(markdown: string, inQuote = false): Block[] {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let blank = true;
  let lastWasItem = false;
  const push = (block: Omit<Block, "sep">, item = false) => {
    const sep = blocks.length === 0 ? "" : item && lastWasItem && !blank ? "\n" : "\n\n";
    blocks.push({ ...block, sep });
    lastWasItem = item;
    blank = false;
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      blank = true;
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const [, indent = "", marker = "```", language] = fence;
      const body: string[] = [];
      i += 1;
      while (i < lines.length) {
        const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[i]!);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) break;
        body.push(stripIndent(lines[i]!, indent.length));
        i += 1;
      }
      i += 1;
      const content = body.join("\n");
      if (inQuote) push({ nodes: content ? [content] : [] });
      else {
        push({
          nodes: content ? [{ tag: "pre", ...(language ? { language } : {}), children: [content] }] : [],
          code: { content, ...(language ? { language } : {}) },
        });
      }
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      push({ nodes: boldLine(atx[2]!) });
      i += 1;
      continue;
    }
    if (HR.test(line)) {
      push({ nodes: [RULE] });
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) {
        inner.push(lines[i]!.replace(/^\s{0,3}> ?/, ""));
        i += 1;
      }
      push({ nodes: quote(inner.join("\n"), inQuote) });
      continue;
    }
    if (
      line.includes("|") &&
      i + 1 < lines.length &&
      TABLE_DELIMITER.test(lines[i + 1]!) &&
      lines[i + 1]!.includes("-")
    ) {
      const rows = [line];
      const delimiter = lines[i + 1]!;
      i += 2;
      while (i < lines.length && lines[i]!.includes("|") && lines[i]!.trim()) rows.push(lines[i++]!);
      const table = renderTable(rows, delimiter);
      push({ nodes: inQuote ? [table] : [{ tag: "pre", children: [table] }] });
      continue;
    }
    const item = ITEM.exec(line);
    if (item && !HR.test(line)) {
      const [, indent = "", bullet = "-", first = ""] = item;
      const text = [first];
      i += 1;
      while (i < lines.length && lines[i]!.trim() && !startsBlock(lines, i)) text.push(lines[i++]!.trim());
      const level = Math.min(Math.floor(indent.replace(/\t/g, "  ").length / 2), 4);
      const pad = "  ".repeat(level);
      const marker = /\d/.test(bullet) ? `${bullet.slice(0, -1)}. ` : "• ";
      const task = /^\[([ xX])\]\s+/.exec(text[0]!);
      if (task) text[0] = text[0]!.slice(task[0].length);
      const prefix = `${pad}${marker}${task ? (task[1] === " " ? "☐ " : "☑ ") : ""}`;
      push({ nodes: [prefix, ...parseInline(text.join(`\n${pad}  `))] }, true);
      continue;
    }
    const paragraph = [line.trim()];
    let heading = false;
    i += 1;
    while (i < lines.length && lines[i]!.trim() && !startsBlock(lines, i)) {
      // "Title\n=====" is a heading; "Title\n-----" reads as a rule under a line here (HR comes first).
      if (SETEXT.test(lines[i]!)) {
        heading = true;
        i += 1;
        break;
      }
      paragraph.push(lines[i++]!.trim());
    }
    const text = paragraph.join("\n").replace(/ {2,}$/gm, "");
    push({ nodes: heading ? boldLine(text) : parseInline(text) });
  }
  return blocks;
}

function boldLine(text: string): HtmlNode[] {
  const inner = parseInline(text);
  return inner.length ? [{ tag: "b", children: inner }] : [];
}

/** A line that begins another block ends a paragraph or a list item's lazy continuation. */
function startsBlock(lines: string[], i: number): boolean {
  const line = lines[i]!;
  return (
    FENCE.test(line) ||
    ATX.test(line) ||
    HR.test(line) ||
    QUOTE.test(line) ||
    ITEM.test(line) ||
    (line.includes("|") && i + 1 < lines.length && TABLE_DELIMITER.test(lines[i + 1]!) && lines[i + 1]!.includes("-"))
  );
}

function stripIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === " ") n += 1;
  return line.slice(n);
}

/** Telegram allows no quote in a quote and no pre in a quote: what is inside is flattened to text and inline tags. */
function quote(inner: string, inQuote: boolean): HtmlNode[] {
  const nodes: HtmlNode[] = [];
  for (const block of markdownBlocks(inner, true)) nodes.push(...(block.sep ? [block.sep] : []), ...block.nodes);
  if (inQuote) return nodes;
  const text = plainText(nodes);
  if (!text) return [];
  const expandable = text.split("\n").length > QUOTE_EXPAND_LINES || text.length > QUOTE_EXPAND_CHARS;
  return [{ tag: "blockquote", ...(expandable ? { expandable: true } : {}), children: nodes }];
}

/** A pipe table as aligned columns of plain text (Telegram has no tables; <pre> keeps them lined up). */
function renderTable(rows: string[], delimiter: string): string {
  const aligns = cells(delimiter).map((cell) =>
    cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : "left",
  );
  const grid = rows.map((row) => cells(row).map((cell) => plainText(parseInline(cell))));
  const columns = Math.max(...grid.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(1, ...grid.map((row) => displayWidth(row[c] ?? ""))),
  );
  const line = (row: string[]) =>
    widths
      .map((w, c) => pad(row[c] ?? "", w, aligns[c] ?? "left"))
      .join(" | ")
      .trimEnd();
  const [head, ...body] = grid;
  return [line(head ?? []), widths.map((w) => "-".repeat(w)).join("-+-"), ...body.map(line)].join("\n");
}

function cells(row: string): string[] {
  const trimmed = row
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function pad(text: string, width: number, align: string): string {
  const room = width - displayWidth(text);
  if (room <= 0) return text;
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}

/** Columns a monospace font gives the text: wide East Asian characters and emoji take two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0xfe0f || (code >= 0x300 && code <= 0x36f) || code === 0x200d) continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
