import type { HtmlNode } from "./html-nodes.ts";

/** Emphasis inside emphasis stops here; deeper markers stay literal text. */
export const MAX_INLINE_DEPTH = 8;

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;
// Where a link may point and still be a link on Telegram; anything else is shown as text.
const LINKABLE = /^(https?:\/\/|tg:\/\/|mailto:)/i;

/**
 * Markdown's inline syntax as models write it → Telegram HTML nodes: `code`, double stars or underscores for bold,
 * single ones for italics, triple for both, ~~strike~~, [links](url) (balanced parentheses in the URL), <autolinks>,
 * ![images](url) as links, backslash escapes. No intra-word emphasis with stars or underscores (snake_case_names and
 * 2*3*4 stay as written); nesting stops at MAX_INLINE_DEPTH. Anything unmatched is text.
 */
export function parseInline(text: string, depth = 0, inLink = false): HtmlNode[] {
  const out: HtmlNode[] = [];
  let literal = "";
  const flush = () => {
    if (literal) out.push(literal);
    literal = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length && PUNCTUATION.test(text[i + 1]!)) {
      literal += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const span = codeSpan(text, i);
      if (span) {
        flush();
        if (span.content) out.push({ tag: "code", children: [span.content] });
        i = span.end;
        continue;
      }
      const run = runLength(text, i, "`");
      literal += text.slice(i, i + run);
      i += run;
      continue;
    }
    if (c === "<") {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(text.slice(i));
      if (auto && !inLink) {
        flush();
        out.push({ tag: "a", href: auto[1]!, children: [auto[1]!.replace(/^mailto:/i, "")] });
        i += auto[0].length;
        continue;
      }
    }
    if ((c === "[" || (c === "!" && text[i + 1] === "[")) && !inLink) {
      const image = c === "!";
      const link = linkAt(text, image ? i + 1 : i);
      if (link) {
        flush();
        const label = image ? link.label || link.href : link.label;
        const children = image ? [label] : parseInline(label, depth + 1, true);
        if (LINKABLE.test(link.href))
          out.push({ tag: "a", href: link.href, children: children.length ? children : [link.href] });
        else out.push(...children, ` (${link.href})`);
        i = link.end;
        continue;
      }
    }
    if (c === "*" || c === "_" || c === "~") {
      const emphasis = depth < MAX_INLINE_DEPTH ? emphasisAt(text, i) : undefined;
      if (emphasis) {
        flush();
        const inner = parseInline(text.slice(emphasis.from, emphasis.to), depth + 1, inLink);
        out.push(wrap(emphasis.marker, inner));
        i = emphasis.end;
        continue;
      }
      const run = runLength(text, i, c);
      literal += text.slice(i, i + run);
      i += run;
      continue;
    }
    literal += c;
    i += 1;
  }
  flush();
  return out;
}

function wrap(marker: string, inner: HtmlNode[]): HtmlNode {
  if (marker === "~~") return { tag: "s", children: inner };
  if (marker.length === 3) return { tag: "b", children: [{ tag: "i", children: inner }] };
  return { tag: marker.length === 2 ? "b" : "i", children: inner };
}

function runLength(text: string, at: number, char: string): number {
  let end = at;
  while (text[end] === char) end += 1;
  return end - at;
}

/** A backtick run closed by a run of the same length; one space each side is padding (`` ` `` shows a backtick). */
function codeSpan(text: string, at: number): { content: string; end: number } | undefined {
  const run = runLength(text, at, "`");
  let search = at + run;
  while (search < text.length) {
    const close = text.indexOf("`", search);
    if (close < 0) return undefined;
    const closeRun = runLength(text, close, "`");
    if (closeRun === run) {
      let content = text.slice(at + run, close).replace(/\n/g, " ");
      if (content.length > 2 && content.startsWith(" ") && content.endsWith(" ") && content.trim()) {
        content = content.slice(1, -1);
      }
      return { content, end: close + closeRun };
    }
    search = close + closeRun;
  }
  return undefined;
}

/** `[label](destination "title")` starting at `[`; the destination may hold balanced parentheses. */
function linkAt(text: string, at: number): { label: string; href: string; end: number } | undefined {
  let depth = 0;
  let close = -1;
  for (let j = at; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") {
      j += 1;
      continue;
    }
    if (c === "`") {
      const span = codeSpan(text, j);
      if (span) j = span.end - 1;
      continue;
    }
    if (c === "[") depth += 1;
    else if (c === "]" && --depth === 0) {
      close = j;
      break;
    }
  }
  if (close < 0 || text[close + 1] !== "(") return undefined;
  let j = close + 2;
  while (text[j] === " ") j += 1;
  let href = "";
  if (text[j] === "<") {
    const end = text.indexOf(">", j);
    if (end < 0) return undefined;
    href = text.slice(j + 1, end);
    j = end + 1;
  } else {
    let parens = 0;
    const start = j;
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (c === "\\" && j + 1 < text.length) {
        j += 1;
        continue;
      }
      if (SPACE.test(c)) break;
      if (c === "(") parens += 1;
      else if (c === ")") {
        if (parens === 0) break;
        parens -= 1;
      }
    }
    href = text.slice(start, j);
  }
  while (text[j] === " ") j += 1;
  const title = /^("[^"]*"|'[^']*')\s*/.exec(text.slice(j));
  if (title) j += title[0].length;
  if (text[j] !== ")" || !href) return undefined;
  return { label: text.slice(at + 1, close), href, end: j + 1 };
}

/** An emphasis span opened at `at`: its marker, where its content lies, where it ends. */
function emphasisAt(text: string, at: number): { marker: string; from: number; to: number; end: number } | undefined {
  const char = text[at]!;
  const run = runLength(text, at, char);
  if (char === "~" ? run !== 2 : run > 3) return undefined;
  const marker = char.repeat(run);
  const intraWord = char !== "~";
  const next = text[at + run];
  const prev = at > 0 ? text[at - 1]! : "";
  if (next === undefined || SPACE.test(next)) return undefined;
  if (intraWord && WORD.test(prev)) return undefined;
  for (let j = at + run; j < text.length; j++) {
    const c = text[j]!;
    if (c === "\\") {
      j += 1;
      continue;
    }
    if (c === "`") {
      const span = codeSpan(text, j);
      if (span) j = span.end - 1;
      continue;
    }
    // A link binds tighter than emphasis: a marker inside its label or URL closes nothing out here.
    if (c === "[") {
      const link = linkAt(text, j);
      if (link) j = link.end - 1;
      continue;
    }
    if (c !== char) continue;
    const closeRun = runLength(text, j, char);
    const after = text[j + closeRun] ?? "";
    if (closeRun === run && j > at + run && !SPACE.test(text[j - 1]!) && !(intraWord && WORD.test(after))) {
      return { marker, from: at + run, to: j, end: j + run };
    }
    j += closeRun - 1;
  }
  return undefined;
}
