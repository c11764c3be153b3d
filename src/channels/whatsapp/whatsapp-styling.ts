/*
 * Markdown as models write it → WhatsApp's own markup, which has no links, headings or tables: **bold** → *bold*,
 * *italic* and _italic_ → _italic_, ~~strike~~ → ~strike~, `code` → ```code```, [label](url) → "label: url",
 * headings → a bold line, bullets → "• ", pipe tables → an aligned monospace block, fenced code → a ``` block
 * without its language (WhatsApp would show the word). No intra-word emphasis (snake_case_names and 2*3*4 stay
 * as written); URLs and code are never restyled.
 */

/** One paragraph-level piece of a styled reply; `code` blocks may be cut only between their lines. */
export type StyledBlock = { text: string; code: boolean };

const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;
const ATX = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const HR = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const RULE = "──────────";

/** A reply's Markdown as WhatsApp blocks, in order. */
export function styleBlocks(markdown: string): StyledBlock[] {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const blocks: StyledBlock[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push({ text: paragraph.join("\n"), code: false });
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const body: string[] = [];
      i += 1;
      while (i < lines.length) {
        const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[i]!);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) break;
        body.push(lines[i]!);
        i += 1;
      }
      i += 1;
      blocks.push({ text: codeBlock(body), code: true });
      continue;
    }
    if (isTableAt(lines, i)) {
      flush();
      const rows: string[] = [lines[i]!];
      i += 2;
      while (i < lines.length && lines[i]!.includes("|") && lines[i]!.trim()) rows.push(lines[i++]!);
      blocks.push({ text: codeBlock(alignTable(rows)), code: true });
      continue;
    }
    if (!line.trim()) {
      flush();
      i += 1;
      continue;
    }
    paragraph.push(styleLine(line));
    i += 1;
  }
  flush();
  return blocks;
}

/** The whole reply as one text (blocks a blank line apart). */
export function styleMarkdown(markdown: string): string {
  return styleBlocks(markdown)
    .map((b) => b.text)
    .join("\n\n");
}

function styleLine(line: string): string {
  const heading = ATX.exec(line);
  if (heading) {
    const text = plainInline(heading[1]!);
    return text ? `*${text}*` : "";
  }
  if (HR.test(line)) return RULE;
  const bullet = BULLET.exec(line);
  if (bullet) return `${bullet[1]}• ${styleInline(bullet[2]!)}`;
  return styleInline(line);
}

function codeBlock(lines: string[]): string {
  // A line of its own that is only backticks would close WhatsApp's block early.
  const body = lines.map((l) => l.replace(/```/g, "`\u200b``")).join("\n");
  return `\`\`\`\n${body}\n\`\`\``;
}

function isTableAt(lines: string[], i: number): boolean {
  const head = lines[i];
  const delimiter = lines[i + 1];
  return !!head && head.includes("|") && !!delimiter && delimiter.includes("-") && TABLE_DELIMITER.test(delimiter);
}

/** A pipe table as aligned plain columns (for a monospace block). */
function alignTable(rows: string[]): string[] {
  const cells = rows.map((row) =>
    row
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split(/(?<!\\)\|/)
      .map((cell) => plainInline(cell.trim().replace(/\\\|/g, "|"))),
  );
  const width = Math.max(...cells.map((r) => r.length));
  const widths = Array.from({ length: width }, (_, c) => Math.max(...cells.map((r) => [...(r[c] ?? "")].length)));
  const line = (r: string[]) =>
    widths
      .map((w, c) => (r[c] ?? "").padEnd(w + (r[c] ?? "").length - [...(r[c] ?? "")].length))
      .join("  ")
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head!), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
}

// Private-use characters stand in for text that must come out exactly as it is (code, URLs, escapes) while the
// emphasis patterns run over the rest.
const HOLD = "\uE000";
const HELD = /\uE000(\d+)\uE000/g;
const BOLD_MARK = "\uE001";

/** One line of Markdown inline syntax → WhatsApp's. */
export function styleInline(text: string): string {
  const held: string[] = [];
  const hold = (s: string) => `${HOLD}${held.push(s) - 1}${HOLD}`;
  let out = text
    .replace(/\\([!-/:-@[-`{-~])/g, (_, c: string) => hold(c))
    .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, code: string) =>
      code.trim() ? hold(`\`\`\`${code.trim()}\`\`\``) : _,
    )
    .replace(/!?\[([^\]]*)\]\(\s*([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\s*\)/g, (_, label: string, url) => {
      const shown = label.trim() ? styleInline(label.trim()) : "";
      return !shown || shown === url ? hold(url) : `${hold(shown)}: ${hold(url)}`;
    })
    .replace(/<((?:https?:\/\/|mailto:)[^\s<>]+)>/gi, (_, url: string) => hold(url.replace(/^mailto:/i, "")))
    .replace(/\bhttps?:\/\/[^\s<>]+/gi, (url) => hold(url));
  out = out
    .replace(/(?<![\w*])\*\*\*(?=\S)([\s\S]+?)(?<=\S)\*\*\*(?![\w*])/g, `${BOLD_MARK}_$1_${BOLD_MARK}`)
    .replace(/(?<![\w*])\*\*(?=\S)([\s\S]+?)(?<=\S)\*\*(?![\w*])/g, `${BOLD_MARK}$1${BOLD_MARK}`)
    .replace(/(?<![\w_])__(?=\S)([\s\S]+?)(?<=\S)__(?![\w_])/g, `${BOLD_MARK}$1${BOLD_MARK}`)
    .replace(/(?<![\w~])~~(?=\S)([\s\S]+?)(?<=\S)~~(?![\w~])/g, "~$1~")
    .replace(/(?<![\w*])\*(?=[^\s*])([\s\S]*?[^\s*])\*(?![\w*])/g, "_$1_")
    .replaceAll(BOLD_MARK, "*");
  return restore(out, held);
}

/** Inline text without emphasis marks or code fences (headings, table cells); links as styleInline renders them. */
function plainInline(text: string): string {
  const held: string[] = [];
  const hold = (s: string) => `${HOLD}${held.push(s) - 1}${HOLD}`;
  const styled = styleInline(text).replace(/```([\s\S]*?)```|\bhttps?:\/\/[^\s<>]+/g, (s, code?: string) =>
    hold(code ?? s),
  );
  return restore(styled.replace(/(?<!\w)[*_~]+(?=\S)|(?<=\S)[*_~]+(?!\w)/g, ""), held);
}

function restore(text: string, held: string[]): string {
  let out = text;
  // Held text may itself hold text (a link label's code): restore until nothing is left.
  for (let pass = 0; pass < 4 && out.includes(HOLD); pass++)
    out = out.replace(HELD, (_, n: string) => held[Number(n)]!);
  return out;
}
