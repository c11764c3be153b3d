/*
 * Markdown as the model writes it → the plain text a Signal message shows. Signal renders no Markdown, so the
 * marks go and what they meant stays readable: headings and paragraphs as lines, bullets "• ", numbered items
 * kept, quotes "> ", code as its text, tables as rows of cells, links "label (url)". Emphasis marks are removed
 * only where they are marks: never inside a word (snake_case, 2*3*4) and never inside code.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const HR = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const SETEXT = /^ {0,3}=+\s*$/;
const RULE = "──────────";

export function markdownToPlain(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const mark = FENCE.exec(line)?.[1];
    if (fence) {
      // A closing fence: the same character, at least as long, nothing after it.
      if (mark && mark[0] === fence[0] && mark.length >= fence.length && line.trim() === mark) fence = undefined;
      else out.push(line);
      continue;
    }
    if (mark) {
      fence = mark;
      continue;
    }
    const heading = ATX.exec(line);
    if (heading) {
      out.push(inline(heading[1]!));
      continue;
    }
    if (HR.test(line)) {
      out.push(RULE);
      continue;
    }
    if (SETEXT.test(line) && out.length && out.at(-1)!.trim()) continue;
    const quote = QUOTE.exec(line);
    if (quote) {
      out.push(`> ${markdownToPlain(quote[1]!)}`.trimEnd());
      continue;
    }
    if (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "") && lines[i + 1]!.includes("-")) {
      out.push(row(line));
      i += 1;
      while (i + 1 < lines.length && lines[i + 1]!.includes("|") && lines[i + 1]!.trim()) out.push(row(lines[++i]!));
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      const [, indent = "", bullet = "-", text = ""] = item;
      const task = /^\[([ xX])\]\s+/.exec(text);
      const marker = /\d/.test(bullet) ? `${bullet.slice(0, -1)}. ` : "• ";
      const box = task ? (task[1] === " " ? "☐ " : "☑ ") : "";
      out.push(`${indent}${marker}${box}${inline(task ? text.slice(task[0].length) : text)}`);
      continue;
    }
    out.push(inline(line.replace(/ {2,}$/, "")));
  }
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** A pipe-table row as its cells, " | " between them (a proportional font aligns nothing anyway). */
function row(line: string): string {
  const cells = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => inline(cell.trim().replace(/\\\|/g, "|")));
  return cells.join(" | ");
}

const PROTECT_OPEN = "\uE000";
const PROTECT_CLOSE = "\uE001";

/** One line's inline Markdown → its text. Code spans and backslash escapes are set aside first, put back last. */
export function inline(text: string): string {
  const kept: string[] = [];
  const protect = (value: string) => `${PROTECT_OPEN}${kept.push(value) - 1}${PROTECT_CLOSE}`;
  let out = text
    .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _ticks, code: string) =>
      protect(code.trim() ? code.replace(/^ (.*) $/, "$1") : code),
    )
    .replace(/\\([\\`*_{}[\]()#+\-.!~|>])/g, (_, ch: string) => protect(ch));
  out = out
    .replace(/!\[([^\]]*)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g, (_, alt: string, url: string) =>
      alt.trim() ? `${alt} (${protect(url)})` : protect(url),
    )
    .replace(/\[([^\]]+)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g, (_, label: string, url: string) =>
      sameLink(label, url) ? protect(url) : `${label} (${protect(url)})`,
    )
    .replace(/<((?:https?|mailto):[^\s>]+)>/g, (_, url: string) => protect(url))
    // A bare URL keeps its underscores and asterisks.
    .replace(/\bhttps?:\/\/[^\s<>]+/g, (url) => protect(url))
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "$1")
    .replace(/(^|[^\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1")
    .replace(/(^|[^\p{L}\p{N}*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\p{L}\p{N}*])/gu, "$1$2")
    .replace(/(^|[^\p{L}\p{N}_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}_])/gu, "$1$2");
  return out.replace(new RegExp(`${PROTECT_OPEN}(\\d+)${PROTECT_CLOSE}`, "g"), (_, n: string) => kept[Number(n)] ?? "");
}

/** `[https://x.y](https://x.y)` or `[x.y](https://x.y)`: the URL alone says it. */
function sameLink(label: string, url: string): boolean {
  const bare = (s: string) => s.replace(/^(https?:\/\/|mailto:)/, "").replace(/\/$/, "");
  return bare(label.trim()) === bare(url);
}
