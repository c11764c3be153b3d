import { describe, expect, test } from "bun:test";
import { readableText } from "../../../src/capabilities/builtins/readable-text.ts";

const PAGE = "https://example.com/dir/page";
const text = (html: string) => readableText(html, PAGE).text;

// Enough prose for Readability's readerable check, in the shape of a post.
const paragraph = (n: number) =>
  `<p>Paragraph ${n} of the post goes on for a while, with commas, clauses and asides, so that it reads like prose; it says what the post is about, and then it says it again, at length, for the benefit of the scoring.</p>`;

describe("readableText without an article", () => {
  test("title from <title>, else the first h1", () => {
    expect(readableText("<title> A  page </title><h1>Head</h1>", PAGE).title).toBe("A page");
    expect(readableText("<h1>Only <i>heading</i></h1><p>x</p>", PAGE).title).toBe("Only heading");
  });

  test("chrome, hidden elements, scripts and form machinery are dropped; the form's words stay", () => {
    const html = `<nav>menu</nav><header>top</header><p>kept</p><div hidden>a</div><span aria-hidden="true">b</span>
      <p style="display: none">c</p><p style="color: red" hidden>d</p><footer>bottom</footer><aside>side</aside>
      <noscript>js</noscript><svg><title>icon</title><text>svg text</text></svg><template><p>tpl</p></template>
      <script>var x = "<p>script</p>";</script><iframe src="/ad">frame</iframe>
      <form><label>Email <input name="e"></label><select><option>UK</option><option>FR</option></select><button>Sign in</button></form>`;
    expect(text(html)).toBe("kept\n\nEmail Sign in");
    expect(readableText(html, PAGE).title).toBe("");
  });

  test("fragments and content outside <body> are read as a browser would place them", () => {
    expect(text("")).toBe("");
    expect(text("just words")).toBe("just words");
    expect(text("<html><p>before</p><body><p>in</p></body><p>after</p></html><p>last</p>")).toBe(
      "before\n\nin\n\nafter\n\nlast",
    );
    expect(text("<div><p>one<p>two</div></span></div><p>three")).toBe("one\n\ntwo\n\nthree");
  });

  test("entities are decoded; a no-break space is a space; nothing is Markdown-escaped", () => {
    expect(text("<p>Fish &amp; chips &mdash; the harbour&#8217;s best&nbsp;since 1921 &lt;3 snake_case *x*</p>")).toBe(
      "Fish & chips — the harbour’s best since 1921 <3 snake_case *x*",
    );
  });

  test("headings, nested and ordered lists", () => {
    expect(
      text("<h2>Sub</h2><ul><li>a<ul><li>a1</li><li>a2</li></ul></li><li>b</li></ul><ol start=3><li>c<li>d</ol>"),
    ).toBe("## Sub\n\n- a\n  - a1\n  - a2\n- b\n\n3. c\n4. d");
  });

  test("links resolve against the page; in-page and javascript links stay plain", () => {
    expect(
      text(`<p><a href="../up">Up</a> <a href="#s">Section</a> <a href="javascript:go()">Go</a> <a href="mailto:a@b.example">Mail</a>
        <a href="https://x.example/">https://x.example/</a> <a href="/img"><img src=x alt=pic></a> <a href="/icon"><img src=i></a></p>`),
    ).toBe(
      "[Up](https://example.com/up) Section Go [Mail](mailto:a@b.example) https://x.example/ [[image: pic]](https://example.com/img)",
    );
    expect(text(`<head><base href="/docs/v2/"></head><body><a href="intro?a=1&amp;b=2">Intro</a></body>`)).toBe(
      "[Intro](https://example.com/docs/v2/intro?a=1&b=2)",
    );
  });

  test("images keep their alt text, decorative ones vanish", () => {
    expect(
      text(`<p>Before <img src="/chart.png" alt="Tide heights in March"> after <img src="/spacer.gif" alt=""></p>`),
    ).toBe("Before [image: Tide heights in March] after");
  });

  test("code blocks are fenced with their language; inline code in backticks", () => {
    expect(
      text(
        '<p>Run <code>make</code>:</p><pre><code class="language-sh">make &amp;&amp; ./a.out\n  --flag\n</code></pre><pre>plain ```\n  pre</pre>',
      ),
    ).toBe("Run `make`:\n\n```sh\nmake && ./a.out\n  --flag\n```\n\n````\nplain ```\n  pre\n````");
  });

  test("data tables as pipe tables, layout tables cell by cell; br breaks", () => {
    expect(text("<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2 | 3</td></tr></table>x<br>y")).toBe(
      "| k | v |\n| --- | --- |\n| 1 | 2 \\| 3 |\n\nx\ny",
    );
    expect(text("<table><tr><td><p>left column</p></td><td><p>right column</p></td></tr></table>")).toBe(
      "left column\n\nright column",
    );
  });
});

describe("readableText with an article", () => {
  test("the article alone, with its title, byline and date; the page around it is gone", () => {
    const page = readableText(
      `<!doctype html><html><head><title>How the post was written | Example Blog</title>
        <meta property="article:published_time" content="2026-03-14T08:30:00Z"></head><body>
        <nav><a href="/">Home</a> <a href="/archive">Archive of everything</a></nav>
        <div class="sidebar"><h3>Related posts</h3><ul><li><a href="/other">Another post entirely</a></li></ul></div>
        <article><h1>How the post was written</h1><p class="byline">By Ada Writer</p>${paragraph(1)}<h2>Part two</h2>${paragraph(2)}${paragraph(3)}</article>
        <div class="comments"><p>First comment, not part of the post at all.</p></div>
        <footer>Footer words</footer></body></html>`,
      PAGE,
    );
    expect(page.title).toBe("How the post was written");
    expect(page.byline).toBe("By Ada Writer");
    expect(page.published).toBe("2026-03-14T08:30:00Z");
    expect(page.text).toStartWith("Paragraph 1 of the post");
    expect(page.text).toContain("\n\n## Part two\n\nParagraph 2");
    expect(page.text).toEndWith("for the benefit of the scoring.");
    for (const chrome of ["Home", "Archive", "Related posts", "Another post", "First comment", "Footer words"]) {
      expect(page.text).not.toContain(chrome);
    }
    expect(page.cut).toBe(false);
  });
});

describe("readableText on hostile markup", () => {
  test("deep nesting and stray end tags are cut before the parse, not parsed for minutes", () => {
    const started = performance.now();
    const deep = readableText(`<p>Start.</p>${"<div>".repeat(50_000)}${"</span>".repeat(200_000)}`, PAGE);
    const stray = readableText(`<p>Start.</p>${"<b>".repeat(200)}${"</span>".repeat(500_000)}`, PAGE);
    // A safety net, not a measurement: the uncut parse takes minutes; a busy machine must not fail the cut one.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(deep).toMatchObject({ text: "Start.", cut: true });
    expect(stray).toMatchObject({ text: "Start.", cut: true });
  });
});
