import { describe, expect, test } from "bun:test";
import { decodeEntities } from "../../../src/capabilities/builtins/html-entities.ts";
import { inlineText, tokenize } from "../../../src/capabilities/builtins/html-tokens.ts";
import { readableText } from "../../../src/capabilities/builtins/readable-text.ts";

const PAGE = "https://example.com/dir/page";
const text = (html: string) => readableText(html, PAGE).text;

describe("decodeEntities", () => {
  test("named, decimal, hex, legacy and unknown", () => {
    expect(decodeEntities("a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#x27;")).toBe(`a & b <c> "d" 'e'`);
    expect(decodeEntities("&copy 2026 &amp co")).toBe("© 2026 & co");
    expect(decodeEntities("&hellip;&mdash;&eacute;&Uuml;")).toBe("…—éÜ");
    expect(decodeEntities("&#150; &#x93;quoted&#x94;")).toBe("– “quoted”");
    expect(decodeEntities("&#0; &#xD800; &#x110000;")).toBe("\uFFFD \uFFFD \uFFFD");
    expect(decodeEntities("&notanentity; &hellip AT&T")).toBe("&notanentity; &hellip AT&T");
  });
});

describe("tokenize", () => {
  test("attributes in every quoting style, decoded", () => {
    const [open] = [...tokenize(`<a HREF="/x?a=1&amp;b=2" data-x='y z' hidden title=plain>`)];
    expect(open).toEqual({
      type: "open",
      name: "a",
      attrs: { href: "/x?a=1&b=2", "data-x": "y z", hidden: "", title: "plain" },
      selfClosing: false,
    });
  });

  test("raw-text elements hide markup, comments vanish, a lone < is text", () => {
    const tokens = [...tokenize(`<script>if (a<b) x("</p>")</script><!-- <p>gone</p> -->1 < 2`)];
    expect(tokens).toEqual([
      { type: "open", name: "script", attrs: {}, selfClosing: false },
      { type: "text", text: `if (a<b) x("</p>")` },
      { type: "close", name: "script" },
      { type: "text", text: "1 " },
      { type: "text", text: "<" },
      { type: "text", text: " 2" },
    ]);
  });

  test("inlineText", () => {
    expect(inlineText("Example <b>Domain</b>\n &amp;  <style>x{}</style>co")).toBe("Example Domain & co");
  });
});

describe("readableText", () => {
  test("title from <title>, else the first h1", () => {
    expect(readableText("<title> A  page </title><h1>Head</h1>", PAGE).title).toBe("A page");
    expect(readableText("<h1>Only <i>heading</i></h1><p>x</p>", PAGE).title).toBe("Only heading");
  });

  test("chrome, hidden elements and scripts are dropped", () => {
    const html = `<nav>menu</nav><header>top</header><p>kept</p><div hidden>a</div><span aria-hidden="true">b</span>
      <p style="display: none">c</p><footer>bottom</footer><aside>side</aside><noscript>js</noscript><button>Go</button>
      <svg><title>icon</title><text>svg text</text></svg><template><p>tpl</p></template>`;
    expect(text(html)).toBe("kept");
    expect(readableText(html, PAGE).title).toBe("");
  });

  test("nested and ordered lists", () => {
    expect(text("<ul><li>a<ul><li>a1</li><li>a2</li></ul></li><li>b</li></ul><ol><li>one<li>two</ol>")).toBe(
      "- a\n  - a1\n  - a2\n- b\n\n1. one\n2. two",
    );
  });

  test("links resolve against the page; in-page and javascript links stay plain", () => {
    expect(
      text(`<p><a href="../up">Up</a> <a href="#s">Section</a> <a href="javascript:go()">Go</a> <a href="mailto:a@b">Mail</a>
        <a href="https://x.example/">https://x.example/</a> <a href="/img"><img src=x alt=pic></a></p>`),
    ).toBe("Up (https://example.com/up) Section Go Mail https://x.example/");
  });

  test("pre keeps its lines, tables keep their cells, br breaks", () => {
    expect(
      text("<pre>a\n  b\n</pre><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>x<br>y"),
    ).toBe("a\n  b\n\nk | v\n1 | 2\n\nx\ny");
  });

  test("tag soup: unclosed paragraphs and stray end tags", () => {
    expect(text("<div><p>one<p>two</div></span></div><p>three")).toBe("one\n\ntwo\n\nthree");
  });

  test("a page that is mostly markup stays fast", () => {
    const started = performance.now();
    readableText(`${"<div>".repeat(50_000)}${"</span>".repeat(200_000)}`, PAGE);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
