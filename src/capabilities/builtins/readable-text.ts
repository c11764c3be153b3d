import { isProbablyReaderable, Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { type MarkupNode, toMarkdown } from "./_html-markdown.ts";
import { parseableLength } from "./_markup-budget.ts";

/**
 * What a person would read on a page, as Markdown: the article when Readability finds one (as Firefox's reader view
 * does), else the page's visible text without navigation, headers, footers, sidebars, scripts and embeds. Entities are
 * decoded by the parser. This module loads linkedom, Readability and turndown: import it when a page is rendered, not
 * on a start-up path.
 */
export type Readable = {
  title: string;
  byline: string;
  published: string;
  text: string;
  /** The markup nested too deeply to parse whole in bounded time; only its first part was read. */
  cut: boolean;
};

// Without an article, these are the chrome around the content or machinery a reader never sees.
const CHROME =
  "script, style, noscript, template, svg, math, canvas, iframe, object, embed, nav, header, footer, aside, select, dialog";
const HIDDEN = "[hidden], [aria-hidden=true], [style]";

export function readableText(html: string, pageUrl: string): Readable {
  const length = parseableLength(html);
  const page = length < html.length ? html.slice(0, length) : html;
  const cut = length < html.length;
  let document = load(page, pageUrl);
  const title = pageTitle(document);

  // Readability always returns its best attempt, even for a login form; its own readerable check is what decides, in
  // Firefox, whether a page has an article at all.
  if (isProbablyReaderable(document)) {
    const article = new Readability<MarkupNode>(document, {
      serializer: (node) => node,
      // The classes it would strip include `language-x`, which names a code block's language.
      keepClasses: true,
    }).parse();
    const text = article?.content ? toMarkdown(article.content) : "";
    if (article && text !== "") {
      return {
        title: oneLine(article.title ?? "") || title,
        byline: oneLine(article.byline ?? ""),
        published: oneLine(article.publishedTime ?? ""),
        text,
        cut,
      };
    }
    document = load(page, pageUrl); // Readability rewrote the page while it looked
  }
  for (const element of document.querySelectorAll(CHROME)) element.remove();
  for (const element of document.querySelectorAll(HIDDEN)) {
    const style: string = element.getAttribute("style") ?? "";
    if (
      element.hasAttribute("hidden") ||
      element.getAttribute("aria-hidden") === "true" ||
      /display\s*:\s*none/i.test(style)
    ) {
      element.remove();
    }
  }
  return { title, byline: "", published: "", text: toMarkdown(document.body), cut };
}

// linkedom builds the tree as the markup is written, not as the HTML standard's tree builder does: a fragment has no
// <html> or <body> (and then Readability's constructor throws), and content outside <body> is missed by document.body.
// So every page is moved into an html > head + body skeleton, as a browser would have built it.
function load(html: string, pageUrl: string) {
  const { document } = parseHTML(html);
  const root = document.createElement("html");
  const head = document.createElement("head");
  const body = document.createElement("body");
  root.append(head, body);
  const place = (node: MarkupNode) => {
    const name = node.nodeType === 1 ? node.localName.toLowerCase() : "";
    if (name === "html" || name === "head" || name === "body") {
      for (const child of [...node.childNodes]) place(child);
      node.remove();
    } else if (name === "title" || name === "meta" || name === "link" || name === "base") {
      head.append(node);
    } else {
      body.append(node);
    }
  };
  for (const node of [...document.childNodes]) if (node.nodeType !== 10) place(node);
  document.append(root);
  resolveLinks(document, pageUrl);
  return document;
}

// linkedom's document has no address (baseURI null, documentURI undefined), so Readability's own pass leaves every
// link relative; links are made absolute here, honouring <base>, before either path reads them.
function resolveLinks(document: MarkupNode, pageUrl: string) {
  const base = absolute(document.querySelector("base[href]")?.getAttribute("href") ?? "", pageUrl) ?? pageUrl;
  for (const link of document.querySelectorAll("a[href]")) {
    const href: string = link.getAttribute("href").trim();
    const target = href.startsWith("#") ? undefined : absolute(href, base);
    if (target === undefined) link.removeAttribute("href");
    else link.setAttribute("href", target);
  }
}

// Only links a reader could follow stay links; in-page anchors and javascript: links are just their text.
function absolute(href: string, base: string): string | undefined {
  if (href === "") return undefined;
  try {
    const url = new URL(href, base);
    return ["http:", "https:", "mailto:"].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function pageTitle(document: MarkupNode): string {
  return oneLine(document.title ?? "") || oneLine(document.querySelector("h1")?.textContent ?? "");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
