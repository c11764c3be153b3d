/*
 * A reply as Telegram's HTML parse mode sees it: text and the few tags it accepts. Kept as a tree until the last
 * moment so a chunk can be measured the way Telegram measures it (UTF-16 units of the text after parsing, one
 * entity per tag) and cut anywhere, tags closed before the cut and reopened after.
 */

export type Tag = "b" | "i" | "u" | "s" | "code" | "pre" | "a" | "blockquote";

export type Element = {
  tag: Tag;
  /** <a href>. */
  href?: string;
  /** <pre><code class="language-…">: one pre entity with a language. */
  language?: string;
  /** <blockquote expandable>: collapsed past a few lines. */
  expandable?: boolean;
  children: HtmlNode[];
};

export type HtmlNode = string | Element;

/** Telegram's HTML needs exactly these four escaped in text and attributes; nothing else is an entity. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));
}

export function renderHtml(nodes: readonly HtmlNode[]): string {
  let out = "";
  for (const node of nodes) {
    if (typeof node === "string") {
      out += escapeHtml(node);
      continue;
    }
    const inner = renderHtml(node.children);
    switch (node.tag) {
      case "a":
        out += `<a href="${escapeHtml(node.href ?? "")}">${inner}</a>`;
        break;
      case "pre":
        out += node.language
          ? `<pre><code class="language-${escapeHtml(node.language)}">${inner}</code></pre>`
          : `<pre>${inner}</pre>`;
        break;
      case "blockquote":
        out += node.expandable ? `<blockquote expandable>${inner}</blockquote>` : `<blockquote>${inner}</blockquote>`;
        break;
      default:
        out += `<${node.tag}>${inner}</${node.tag}>`;
    }
  }
  return out;
}

/** The text Telegram keeps once it has parsed the tags: what its length limits count. */
export function plainText(nodes: readonly HtmlNode[]): string {
  let out = "";
  for (const node of nodes) out += typeof node === "string" ? node : plainText(node.children);
  return out;
}

/** One entity per element with text in it (Telegram makes none for an empty tag). */
export function entityCount(nodes: readonly HtmlNode[]): number {
  let count = 0;
  for (const node of nodes) {
    if (typeof node === "string") continue;
    if (plainText(node.children).length > 0) count += 1;
    count += entityCount(node.children);
  }
  return count;
}

/** Where each element starts, in UTF-16 units of the plain text, in document order. */
export function entityStarts(nodes: readonly HtmlNode[], from = 0, out: number[] = []): number[] {
  let at = from;
  for (const node of nodes) {
    if (typeof node === "string") {
      at += node.length;
      continue;
    }
    const length = plainText(node.children).length;
    if (length > 0) out.push(at);
    entityStarts(node.children, at, out);
    at += length;
  }
  return out;
}

/** Cuts the tree at a plain-text offset; an element that spans the cut is in both halves. */
export function splitNodes(nodes: readonly HtmlNode[], offset: number): [HtmlNode[], HtmlNode[]] {
  const head: HtmlNode[] = [];
  const tail: HtmlNode[] = [];
  let at = 0;
  for (const node of nodes) {
    const length = typeof node === "string" ? node.length : plainText(node.children).length;
    if (at + length <= offset) head.push(node);
    else if (at >= offset) tail.push(node);
    else if (typeof node === "string") {
      head.push(node.slice(0, offset - at));
      tail.push(node.slice(offset - at));
    } else {
      const [h, t] = splitNodes(node.children, offset - at);
      head.push({ ...node, children: h });
      tail.push({ ...node, children: t });
    }
    at += length;
  }
  return [head, tail];
}

/** The UTF-16 index is not inside a surrogate pair (an emoji cut in half is invalid UTF-8 on the wire). */
export function safeCut(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return at;
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
