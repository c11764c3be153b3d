import type { MarkupNode } from "./_html-markdown.ts";

/**
 * Parses HTML (a page or a fragment) with linkedom; entities are decoded by the parser. linkedom is loaded here, on
 * the first search, and never at import: the search backends sit on the start path of every `fermix ask`, and
 * linkedom takes a tenth of a second or more to load (measured from source).
 */
export async function parseMarkup(html: string): Promise<MarkupNode> {
  const { parseHTML } = await import("linkedom");
  return parseHTML(html).document;
}

// Their text is code or styling, never something a reader sees.
const UNREAD = new Set(["script", "style"]);

/** The text of a node ("Example <b>Domain</b> &amp; co" → "Example Domain & co"), whitespace collapsed. */
export function inlineText(node: MarkupNode): string {
  let text = "";
  const read = (parent: MarkupNode) => {
    for (const child of parent.childNodes) {
      if (child.nodeType === 3) text += child.data;
      if (child.nodeType !== 1) continue;
      const name = child.localName.toLowerCase();
      // A line break separates words even though it has no text of its own.
      if (name === "br") text += " ";
      else if (!UNREAD.has(name)) read(child);
    }
  };
  read(node);
  return text.replace(/\s+/g, " ").trim();
}
