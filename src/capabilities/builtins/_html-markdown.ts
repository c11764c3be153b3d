// turndown's Node build loads the domino DOM at import to parse strings (a quarter of a second, and 240 KB minified in
// the binary); its browser build parses nothing itself, and we only ever hand it linkedom nodes.
import TurndownService from "turndown/lib/turndown.browser.es.js";

/**
 * HTML → Markdown for a model to read, not for a renderer: headings, lists, fenced code, links as [text](url) and small
 * data tables as pipe tables. Images become `[image: alt]`: web_fetch cannot show a picture and its URL costs many
 * tokens, but the alt text says what the page shows there; an image without alt text is decoration and is dropped.
 */

// A linkedom node. The project compiles without TypeScript's DOM library, so DOM types resolve to `any`: this name
// says what is meant where the compiler cannot.
export type MarkupNode = TurndownService.Node;

const service = new TurndownService({
  headingStyle: "atx",
  hr: "---",
  bulletListMarker: "-",
  codeBlockStyle: "fenced",
  br: "",
});

// Escapes are for renderers: to a model they only corrupt what it quotes back (snake\_case, 2026\. was).
service.escape = (text) => text;

service.addRule("link", {
  filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
  replacement(content, node) {
    const href = node.getAttribute("href") ?? "";
    const text = content.replace(/\s+/g, " ").trim();
    if (text === "") return "";
    return text === href ? href : `[${text}](${href})`;
  },
});

service.addRule("image", {
  filter: "img",
  replacement(_content, node) {
    const alt = (node.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
    return alt === "" ? "" : `[image: ${alt}]`;
  },
});

// turndown's own rule fences only <pre><code>; a bare <pre> is just as much code, and `language-x` may sit on either.
service.addRule("codeBlock", {
  filter: "pre",
  replacement(_content, node) {
    const code: string = (node.textContent ?? "").replace(/\n$/, "");
    const classes = `${node.getAttribute("class") ?? ""} ${node.querySelector("code")?.getAttribute("class") ?? ""}`;
    const language = /(?:^|\s)lang(?:uage)?-(\S+)/.exec(classes)?.[1] ?? "";
    const longestRun = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
    const fence = "`".repeat(Math.max(3, longestRun + 1));
    return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
  },
});

// As turndown's rule, with one space after the marker instead of three: the same list in fewer tokens.
service.addRule("listItem", {
  filter: "li",
  replacement(content, node, options) {
    const parent = node.parentNode;
    let prefix = `${options.bulletListMarker} `;
    if (parent?.nodeName === "OL") {
      const start = Number.parseInt(parent.getAttribute("start") ?? "", 10);
      prefix = `${(Number.isNaN(start) ? 1 : start) + Array.prototype.indexOf.call(parent.children, node)}. `;
    }
    const paragraph = content.endsWith("\n");
    const body = content.replace(/^\n+|\n+$/g, "") + (paragraph ? "\n" : "");
    return `${prefix}${body.replace(/\n/g, `\n${" ".repeat(prefix.length)}`)}${node.nextSibling ? "\n" : ""}`;
  },
});

// A table of short cells reads best as a pipe table; a layout table (paragraphs, lists or tables in its cells) is left
// to turndown, which gives each cell its own paragraph.
const dataTables = new WeakMap<object, boolean>();
function inDataTable(node: MarkupNode): boolean {
  const table = node.closest("table");
  if (table === null) return false;
  let data = dataTables.get(table);
  if (data === undefined) {
    data = table.querySelector("table, p, div, ul, ol, pre, blockquote, h1, h2, h3, h4, h5, h6") === null;
    dataTables.set(table, data);
  }
  return data;
}

service.addRule("tableCell", {
  filter: (node) => (node.nodeName === "TD" || node.nodeName === "TH") && inDataTable(node),
  replacement: (content) => ` ${content.replace(/\s+/g, " ").trim().replaceAll("|", "\\|")} |`,
});

service.addRule("tableRow", {
  filter: (node) => node.nodeName === "TR" && inDataTable(node),
  replacement(content, node) {
    const first = node.closest("table")?.querySelector("tr") === node;
    // GitHub-flavoured Markdown takes the first row as the header, whether or not the page marked it so.
    return `\n|${content}\n${first ? `|${" --- |".repeat(node.children.length)}\n` : ""}`;
  },
});

service.addRule("tableSection", {
  filter: (node) => ["THEAD", "TBODY", "TFOOT"].includes(node.nodeName) && inDataTable(node),
  replacement: (content) => content,
});

/** The Markdown for an element or document, trimmed. */
export function toMarkdown(node: MarkupNode): string {
  // A no-break space is layout, not meaning; as a plain space the text matches what a model searches for or quotes.
  // Spaces left at a line's end (before a dropped input or image) are only tokens.
  return service
    .turndown(node)
    .replace(/\u00a0/g, " ")
    .replace(/[ \t]+$/gm, "");
}
