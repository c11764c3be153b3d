// Telegram's Markdown reader is the one fermix has: it already turns a model's Markdown into a small tree of the
// inline styles every chat platform shares (bold, italic, strike, code, pre, links, quotes), which is rendered here
// as Slack's mrkdwn instead of Telegram's HTML.
import { type Element, type HtmlNode, plainText, safeCut, splitNodes } from "../telegram/html-nodes.ts";
import { markdownBlocks } from "../telegram/markdown-blocks.ts";

/** Slack refuses a message's text past 40,000 characters (msg_too_long); chunks are measured after conversion. */
export const SLACK_TEXT_LIMIT = 40_000;

/**
 * A model's Markdown → the mrkdwn messages Slack gets, in order, each at most `limit` characters: blocks are packed
 * whole while they fit; a block longer than a message is cut at a line break (else a space), its styles closed
 * before the cut and reopened after, a code block continuing as its own ``` block.
 */
export function renderReply(markdown: string, limit = SLACK_TEXT_LIMIT): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const block of markdownBlocks(markdown)) {
    let sep = block.sep;
    for (const piece of fit(block.nodes, limit)) {
      if (current && current.length + sep.length + piece.length > limit) {
        chunks.push(current);
        current = "";
      }
      current += (current ? sep : "") + piece;
      sep = "\n";
    }
  }
  chunks.push(current);
  return chunks.map((chunk) => chunk.trim()).filter(Boolean);
}

/** The first message of a reply (a draft edited in place holds one). */
export function renderFirst(markdown: string, limit = SLACK_TEXT_LIMIT): string | undefined {
  return renderReply(markdown, limit)[0];
}

/** Nodes as mrkdwn: the three characters Slack reserves escaped, styles as Slack's single markers. */
export function mrkdwn(nodes: readonly HtmlNode[]): string {
  let out = "";
  for (const node of nodes) out += typeof node === "string" ? escapeMrkdwn(node) : element(node);
  return out;
}

function element(node: Element): string {
  switch (node.tag) {
    case "b":
      return wrap("*", mrkdwn(node.children));
    case "i":
      return wrap("_", mrkdwn(node.children));
    case "s":
      return wrap("~", mrkdwn(node.children));
    case "u":
      // Slack has no underline.
      return mrkdwn(node.children);
    case "code": {
      // No escape exists for a backtick inside inline code: a look-alike keeps the span closed where it should be.
      const text = plainText(node.children).replace(/`/g, "ˋ");
      return text ? `\`${escapeMrkdwn(text)}\`` : "";
    }
    case "pre": {
      // The language is left out: Slack would show the word as the block's first line.
      const text = plainText(node.children).replace(/```/g, "ˋˋˋ").replace(/\n+$/, "");
      return `\`\`\`\n${escapeMrkdwn(text)}\n\`\`\``;
    }
    case "a": {
      const label = mrkdwn(node.children);
      const href = (node.href ?? "").replace(/[|>\s]/g, encodeURIComponent);
      if (!href) return label;
      if (!label.trim() || plainText(node.children) === node.href) return `<${href}>`;
      // A | would end the label early.
      return `<${href}|${label.replace(/\|/g, "¦")}>`;
    }
    case "blockquote":
      return mrkdwn(node.children)
        .split("\n")
        .map((line) => `>${line ? ` ${line}` : ""}`)
        .join("\n");
  }
}

/**
 * Slack styles a run only when its markers touch text and stay on one line: spaces at the edges move outside, and
 * each line of a multi-line run is wrapped on its own.
 */
function wrap(marker: string, inner: string): string {
  return inner
    .split("\n")
    .map((line) => {
      const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(line)!;
      const [, lead = "", core = "", trail = ""] = match;
      return core ? `${lead}${marker}${core}${marker}${trail}` : line;
    })
    .join("\n");
}

/** Slack reads &, < and > as markup; everything else is text (channels facts §6: mrkdwn). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One block as pieces of at most `limit` characters of mrkdwn. */
function fit(nodes: HtmlNode[], limit: number): string[] {
  const pieces: string[] = [];
  let rest = nodes;
  for (;;) {
    const whole = mrkdwn(rest);
    if (whole.length <= limit) {
      if (whole.trim()) pieces.push(whole);
      return pieces;
    }
    const plain = plainText(rest);
    // Markup and escapes make the mrkdwn longer than the text: the cut moves back until the head fits.
    let budget = Math.min(limit, plain.length);
    for (;;) {
      const at = cutPoint(plain, budget);
      const [head, tail] = splitNodes(rest, at);
      const rendered = mrkdwn(head);
      if (rendered.length <= limit || at <= 1) {
        pieces.push(rendered);
        rest = tail;
        break;
      }
      budget = Math.max(1, Math.floor((at * limit) / rendered.length) - 16);
    }
  }
}

/** The last line break in the window, else the last space, else hard at the limit (never inside an emoji). */
function cutPoint(plain: string, limit: number): number {
  const window = plain.slice(0, limit);
  const newline = window.lastIndexOf("\n") + 1;
  if (newline >= limit / 2) return newline;
  const space = window.lastIndexOf(" ") + 1;
  if (space >= limit / 4) return space;
  if (newline > 0) return newline;
  return Math.max(1, safeCut(plain, limit));
}
