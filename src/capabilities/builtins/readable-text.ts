import { decodeEntities } from "./html-entities.ts";
import { tokenize, VOID_ELEMENTS } from "./html-tokens.ts";

/**
 * Turns a page into the text a person would read: headings, paragraphs, list items and links as `text (url)`,
 * without scripts, styles and the chrome around the content (navigation, headers, footers, sidebars).
 */
export type Readable = { title: string; text: string };

// Chrome and machinery rather than content; their whole subtree is dropped.
const SKIPPED = new Set([
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "nav",
  "header",
  "footer",
  "aside",
  "button",
  "select",
  "dialog",
]);

// Blocks that read as separate paragraphs (a blank line around them).
const PARAGRAPHS = new Set([
  "p",
  "pre",
  "blockquote",
  "table",
  "ul",
  "ol",
  "dl",
  "figure",
  "section",
  "article",
  "main",
  "details",
  "fieldset",
  "address",
  "hr",
]);

// Blocks that only start a new line.
const LINES = new Set(["div", "li", "tr", "dt", "dd", "figcaption", "summary", "legend", "caption", "center", "form"]);

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

type Open = { name: string; skip: boolean; href?: string; linkStart?: number; linkFlushes?: number };

export function readableText(html: string, pageUrl: string): Readable {
  const stack: Open[] = [];
  // How many of each element are open, so a stray end tag costs nothing instead of a scan of the whole stack.
  const openCount = new Map<string, number>();
  const lists: { ordered: boolean; count: number }[] = [];
  const lines: string[] = [];
  let line = "";
  let prefix = "";
  let skipping = 0;
  let preformatted = 0;
  let flushes = 0;
  let title = "";
  let firstH1 = "";
  let inTitle = false;
  let inH1 = false;

  const flush = () => {
    const text = preformatted > 0 ? line.replace(/\s+$/, "") : line.replace(/\s+/g, " ").trim();
    if (text !== "") {
      lines.push(prefix + text);
      prefix = "";
      flushes++;
    }
    line = "";
  };
  const blank = () => {
    flush();
    if (lines.length > 0 && lines.at(-1) !== "") lines.push("");
  };

  const onOpen = (entry: Open, attrs: Record<string, string>) => {
    const { name } = entry;
    const level = HEADINGS[name];
    if (level !== undefined) {
      blank();
      prefix = `${"#".repeat(level)} `;
      inH1 = level === 1 && firstH1 === "";
    } else if (name === "ul" || name === "ol") {
      // A list nested in an item continues that item; only an outer list is a paragraph of its own.
      if (lists.length > 0) flush();
      else blank();
      lists.push({ ordered: name === "ol", count: 0 });
    } else if (name === "li") {
      flush();
      const list = lists.at(-1);
      const indent = "  ".repeat(Math.max(0, lists.length - 1));
      prefix = list?.ordered ? `${indent}${++list.count}. ` : `${indent}- `;
    } else if (name === "pre") {
      blank();
      preformatted++;
    } else if (PARAGRAPHS.has(name)) {
      blank();
    } else if (LINES.has(name)) {
      flush();
    } else if ((name === "td" || name === "th") && line.trim() !== "") {
      line += " | ";
    } else if (name === "a" && attrs.href !== undefined) {
      entry.href = linkTarget(attrs.href, pageUrl);
      entry.linkStart = line.length;
      entry.linkFlushes = flushes;
    }
  };

  const onClose = (entry: Open) => {
    const { name } = entry;
    if (HEADINGS[name] !== undefined) {
      if (inH1) firstH1 = line.replace(/\s+/g, " ").trim();
      inH1 = false;
      blank();
      prefix = "";
    } else if (name === "ul" || name === "ol") {
      lists.pop();
      if (lists.length > 0) flush();
      else blank();
    } else if (name === "li") {
      flush();
      prefix = "";
    } else if (name === "pre") {
      flush();
      preformatted = Math.max(0, preformatted - 1);
      blank();
    } else if (PARAGRAPHS.has(name)) {
      blank();
    } else if (LINES.has(name)) {
      flush();
    } else if (name === "a" && entry.href !== undefined && entry.linkFlushes === flushes) {
      const text = line.slice(entry.linkStart).replace(/\s+/g, " ").trim();
      if (text !== "" && text !== entry.href) line += ` (${entry.href})`;
    }
  };

  for (const token of tokenize(html)) {
    if (token.type === "text") {
      const text = decodeEntities(token.text);
      if (inTitle) title ||= text.replace(/\s+/g, " ").trim();
      else if (skipping === 0) line += text;
    } else if (token.type === "open") {
      const { name, attrs } = token;
      if (name === "title" && !openCount.get("svg")) inTitle = true;
      if (name === "br") {
        if (skipping === 0) flush();
        continue;
      }
      if (VOID_ELEMENTS.has(name) || (token.selfClosing && name !== "title")) continue;
      const entry: Open = { name, skip: SKIPPED.has(name) || isHidden(attrs) };
      stack.push(entry);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (entry.skip) skipping++;
      if (skipping === 0) onOpen(entry, attrs);
    } else {
      if (token.name === "title") inTitle = false;
      if (!openCount.get(token.name)) continue;
      const index = stack.findLastIndex((open) => open.name === token.name);
      // Closing an outer element closes whatever was left open inside it, as browsers do for a stray </div>.
      while (stack.length > index) {
        const entry = stack.pop()!;
        openCount.set(entry.name, openCount.get(entry.name)! - 1);
        if (skipping === 0) onClose(entry);
        if (entry.skip) skipping--;
      }
    }
  }
  flush();

  const text = lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: title || firstH1, text };
}

function isHidden(attrs: Record<string, string>): boolean {
  if ("hidden" in attrs || attrs["aria-hidden"] === "true") return true;
  return /display\s*:\s*none/i.test(attrs.style ?? "");
}

// Only links a reader could follow are shown; in-page anchors and javascript: links are just their text.
function linkTarget(href: string, pageUrl: string): string | undefined {
  if (href.trim().startsWith("#")) return undefined;
  try {
    const url = new URL(href.trim(), pageUrl);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
