import { decodeEntities } from "./html-entities.ts";

/**
 * A forgiving HTML tokenizer: enough of the HTML standard's tokenizer to pull text, tags and attributes out of
 * real pages (unclosed tags, unquoted attributes, comments, raw-text elements), not a tree builder. Text tokens
 * stay undecoded so a caller can tell markup from text; attribute values are decoded.
 */
export type HtmlToken =
  | { type: "text"; text: string }
  | { type: "open"; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: "close"; name: string };

// Their content is text up to the matching end tag, never markup: "<script>if (a < b)</script>" is one token.
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"]);

export const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

const TAG_NAME = /[a-zA-Z][^\s/>]*/y;
const ATTR_NAME = /[^\s"'>/=]+/y;
const SPACE = /[\s/]*/y;
const EQUALS = /\s*=\s*/y;
const UNQUOTED = /[^\s>]*/y;

export function* tokenize(html: string): Generator<HtmlToken> {
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      yield { type: "text", text: html.slice(i) };
      return;
    }
    if (lt > i) yield { type: "text", text: html.slice(i, lt) };
    i = lt;
    const next = html[i + 1] ?? "";
    if (html.startsWith("<!--", i)) {
      const end = html.indexOf("-->", i + 4);
      i = end === -1 ? html.length : end + 3;
    } else if (next === "!" || next === "?") {
      // Doctype, CDATA and processing instructions carry no readable text.
      const end = html.indexOf(">", i);
      i = end === -1 ? html.length : end + 1;
    } else if (next === "/" && /[a-zA-Z]/.test(html[i + 2] ?? "")) {
      TAG_NAME.lastIndex = i + 2;
      const name = (TAG_NAME.exec(html)?.[0] ?? "").toLowerCase();
      const end = html.indexOf(">", i);
      i = end === -1 ? html.length : end + 1;
      yield { type: "close", name };
    } else if (/[a-zA-Z]/.test(next)) {
      const tag = readStartTag(html, i + 1);
      i = tag.end;
      yield { type: "open", name: tag.name, attrs: tag.attrs, selfClosing: tag.selfClosing };
      // In HTML "<script />" still opens a script: the slash means nothing outside SVG and MathML.
      if (RAW_TEXT.has(tag.name)) {
        const close = new RegExp(`</${tag.name}[\\s/>]`, "ig");
        close.lastIndex = i;
        const found = close.exec(html);
        const stop = found === null ? html.length : found.index;
        if (stop > i) yield { type: "text", text: html.slice(i, stop) };
        const end = found === null ? -1 : html.indexOf(">", stop);
        i = end === -1 ? html.length : end + 1;
        yield { type: "close", name: tag.name };
      }
    } else {
      yield { type: "text", text: "<" };
      i += 1;
    }
  }
}

function readStartTag(html: string, from: number) {
  TAG_NAME.lastIndex = from;
  const name = TAG_NAME.exec(html)![0].toLowerCase();
  let i = TAG_NAME.lastIndex;
  const attrs: Record<string, string> = {};
  let selfClosing = false;
  while (i < html.length) {
    SPACE.lastIndex = i;
    SPACE.exec(html);
    selfClosing = SPACE.lastIndex > i && html[SPACE.lastIndex - 1] === "/";
    i = SPACE.lastIndex;
    if (i >= html.length) break;
    if (html[i] === ">") return { name, attrs, selfClosing, end: i + 1 };
    ATTR_NAME.lastIndex = i;
    const attr = ATTR_NAME.exec(html);
    if (attr === null) {
      i += 1; // a stray quote or "=": skip it, as browsers do
      continue;
    }
    i = ATTR_NAME.lastIndex;
    let value = "";
    EQUALS.lastIndex = i;
    if (EQUALS.exec(html) !== null) {
      i = EQUALS.lastIndex;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        const stop = close === -1 ? html.length : close;
        value = html.slice(i + 1, stop);
        i = stop + 1;
      } else {
        UNQUOTED.lastIndex = i;
        value = UNQUOTED.exec(html)![0];
        i = UNQUOTED.lastIndex;
      }
    }
    const key = attr[0].toLowerCase();
    if (!(key in attrs)) attrs[key] = decodeEntities(value);
  }
  return { name, attrs, selfClosing, end: html.length };
}

/** The text of an HTML fragment ("Example <b>Domain</b> &amp; co" → "Example Domain & co"), whitespace collapsed. */
export function inlineText(html: string): string {
  let text = "";
  let hidden = 0;
  for (const token of tokenize(html)) {
    if (token.type === "text" && hidden === 0) text += token.text;
    else if (token.type === "open" && (token.name === "script" || token.name === "style")) hidden++;
    else if (token.type === "close" && (token.name === "script" || token.name === "style"))
      hidden = Math.max(0, hidden - 1);
    else if (token.type === "open" && token.name === "br") text += " ";
  }
  return decodeEntities(text).replace(/\s+/g, " ").trim();
}
