import { describe, expect, test } from "bun:test";
import { entityCount, splitNodes } from "../../../src/channels/telegram/html-nodes.ts";
import { parseInline } from "../../../src/channels/telegram/inline-markdown.ts";
import {
  CHUNK_ENTITIES,
  CHUNK_UNITS,
  CODE_PLACEHOLDER,
  renderReply,
} from "../../../src/channels/telegram/reply-chunks.ts";
import { parseTelegramHtml } from "../../fake/telegram-bot-api.ts";

const html = (markdown: string) => renderReply(markdown).map((c) => c.html);

/** Every chunk must be what Telegram's parser accepts, within the budgets. */
function expectValid(markdown: string) {
  const chunks = renderReply(markdown);
  for (const chunk of chunks) {
    const parsed = parseTelegramHtml(chunk.html);
    if ("error" in parsed) throw new Error(`${parsed.error}\n${chunk.html}`);
    expect(parsed.text.trim()).toBe(chunk.plain);
    expect(parsed.text.trim().length).toBeLessThanOrEqual(CHUNK_UNITS);
    expect(parsed.entities).toBeLessThanOrEqual(CHUNK_ENTITIES);
  }
  return chunks;
}

describe("Markdown → Telegram HTML", () => {
  test("escapes every text node with the four entities only, never <br>", () => {
    expect(html("a < b && c > d \"quoted\" 'single'\nnext line")).toEqual([
      "a &lt; b &amp;&amp; c &gt; d &quot;quoted&quot; 'single'\nnext line",
    ]);
    expect(html("`<script>&amp;</script>`")).toEqual(["<code>&lt;script&gt;&amp;amp;&lt;/script&gt;</code>"]);
    expect(html('[x](https://e.com/?a=1&b="2")')).toEqual(['<a href="https://e.com/?a=1&amp;b=&quot;2&quot;">x</a>']);
    expect(html("<b>not a tag</b>")).toEqual(["&lt;b&gt;not a tag&lt;/b&gt;"]);
  });

  test("emphasis, code, links; no intra-word emphasis with * or _", () => {
    expect(html("**bold** __bold__ *it* _it_ ***both*** ~~gone~~")).toEqual([
      "<b>bold</b> <b>bold</b> <i>it</i> <i>it</i> <b><i>both</i></b> <s>gone</s>",
    ]);
    expect(html("snake_case_name and 2*3*4 and file_name_here.txt")).toEqual([
      "snake_case_name and 2*3*4 and file_name_here.txt",
    ]);
    expect(html("a * b * c and ** spaced ** stay")).toEqual(["a * b * c and ** spaced ** stay"]);
    expect(html("\\*not italic\\* and \\`not code\\`")).toEqual(["*not italic* and `not code`"]);
    expect(html("[wiki](https://en.wikipedia.org/wiki/Foo_(bar)) and <https://x.dev/a>")).toEqual([
      '<a href="https://en.wikipedia.org/wiki/Foo_(bar)">wiki</a> and <a href="https://x.dev/a">https://x.dev/a</a>',
    ]);
    expect(html("[run](javascript:alert(1))")).toEqual(["run (javascript:alert(1))"]);
    expect(html("![a chart](https://img.example/c.png)")).toEqual(['<a href="https://img.example/c.png">a chart</a>']);
  });

  test("nested formatting, and nesting stops at depth 8", () => {
    expect(html("**bold with *italic* and `code` and [a **link**](https://e.com)**")).toEqual([
      '<b>bold with <i>italic</i> and <code>code</code> and <a href="https://e.com">a <b>link</b></a></b>',
    ]);
    // Five distinct markers nest as written.
    expect(html("**1 __2 *3 _4 ~~5~~ 4_ 3* 2__ 1**")).toEqual(["<b>1 <b>2 <i>3 <i>4 <s>5</s> 4</i> 3</i> 2</b> 1</b>"]);
    // Past depth 8 markers are text.
    expect(parseInline("**x** `c`", 7)).toEqual([{ tag: "b", children: ["x"] }, " ", { tag: "code", children: ["c"] }]);
    expect(parseInline("**x** _y_", 8)).toEqual(["**x** _y_"]);
  });

  test("blocks: headings bold, bullets, numbers, quotes, rules, fenced code with its language", () => {
    expect(
      html(
        "# Title\n\n- one\n- **two**\n  - nested\n1. first\n2) second\n- [ ] todo\n- [x] done\n\n> quoted\n> more\n\n---\n\n```python\nprint(1 < 2)\n```",
      ),
    ).toEqual([
      [
        "<b>Title</b>",
        "",
        "• one",
        "• <b>two</b>",
        "  • nested",
        "1. first",
        "2. second",
        "• ☐ todo",
        "• ☑ done",
        "",
        "<blockquote>quoted\nmore</blockquote>",
        "",
        "──────────",
        "",
        '<pre><code class="language-python">print(1 &lt; 2)</code></pre>',
      ].join("\n"),
    ]);
  });

  test("a long quote is expandable; nothing nests inside a quote that Telegram refuses", () => {
    const [long] = html("> a\n> b\n> c\n> d");
    expect(long).toBe("<blockquote expandable>a\nb\nc\nd</blockquote>");
    const [inner] = html("> outer **bold**\n> > inner\n> ```\n> code\n> ```");
    expect(inner).toBe("<blockquote expandable>outer <b>bold</b>\n\ninner\n\ncode</blockquote>");
    expectValid("> outer\n> > inner\n> ```\n> code\n> ```");
  });

  test("pipe tables become an aligned <pre>, wide characters counted as two columns", () => {
    const [table] = html("| Fruit | Qty |\n|:------|----:|\n| 苹果 | 3 |\n| **apple** | 10 |");
    expect(table).toBe("<pre>Fruit | Qty\n------+----\n苹果  |   3\napple |  10</pre>");
  });

  test("UTF-16 counting: emoji and CJK count as Telegram counts them", () => {
    // 🎉 is two UTF-16 units, 漢 one: 700 of each fill a chunk exactly, one more spills over.
    const emoji = "🎉".repeat(700);
    expect(renderReply(emoji)).toHaveLength(1);
    const spill = renderReply(`${emoji} x`);
    expect(spill).toHaveLength(2);
    expect(spill[0]!.plain).toBe(emoji);
    const cjk = "漢".repeat(1400);
    expect(renderReply(cjk)).toHaveLength(1);
    const cut = renderReply(`${"漢".repeat(1500)}`);
    expect(cut.map((c) => c.plain.length)).toEqual([1400, 100]);
    // A hard cut never splits a surrogate pair.
    const odd = renderReply(`a${"🎉".repeat(800)}`);
    for (const chunk of odd)
      expect(chunk.plain).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(odd.map((c) => c.plain).join("")).toBe(`a${"🎉".repeat(800)}`);
  });

  test("chunks of at most 1,400 units, cut at paragraph then line then word boundaries, in order", () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: ${"lorem ipsum ".repeat(40).trim()}`);
    const markdown = paragraphs.join("\n\n");
    const chunks = expectValid(markdown);
    expect(chunks.length).toBeGreaterThan(3);
    // Whole paragraphs per chunk (each is ~490 units): two fit, a third does not.
    expect(chunks[0]!.plain).toBe(paragraphs.slice(0, 2).join("\n\n"));
    expect(chunks.map((c) => c.plain).join("\n\n")).toBe(markdown);

    const longParagraph = "word ".repeat(700).trim();
    const cut = expectValid(longParagraph);
    expect(cut.length).toBe(3);
    for (const chunk of cut) expect(chunk.plain).toMatch(/^word( word)*$/);
  });

  test("a formatted run cut in two keeps its tags on both sides", () => {
    const chunks = expectValid(`**${"bold words ".repeat(200).trim()}**`);
    expect(chunks.length).toBe(2);
    for (const chunk of chunks) {
      expect(chunk.html.startsWith("<b>")).toBe(true);
      expect(chunk.html.endsWith("</b>")).toBe(true);
    }
    const [head, tail] = splitNodes([{ tag: "b", children: ["abc", { tag: "i", children: ["def"] }] }], 4);
    expect(head).toEqual([{ tag: "b", children: ["abc", { tag: "i", children: ["d"] }] }]);
    expect(tail).toEqual([{ tag: "b", children: [{ tag: "i", children: ["ef"] }] }]);
  });

  test("at most 90 entities per chunk", () => {
    const markdown = Array.from({ length: 250 }, (_, i) => `**b${i}**`).join(" ");
    const chunks = expectValid(markdown);
    expect(chunks.length).toBe(3);
    expect(chunks.map((c) => parseTelegramHtml(c.html) as { entities: number }).map((p) => p.entities)).toEqual([
      90, 90, 70,
    ]);
    expect(entityCount(parseInline(markdown))).toBe(250);
  });

  test("a code block over 3,800 units goes as code-N.txt with a caption; a shorter one is split into <pre> chunks", () => {
    const big = Array.from({ length: 150 }, (_, i) => `line ${i} ${"x".repeat(25)}`).join("\n");
    expect(big.length).toBeGreaterThan(3800);
    const chunks = expectValid(`Here:\n\n\`\`\`ts\n${big}\n\`\`\`\n\nAnd a second:\n\n\`\`\`\n${big}\n\`\`\`\n\nDone.`);
    const files = chunks.flatMap((c) => c.files);
    expect(files.map((f) => [f.filename, f.caption])).toEqual([
      ["code-1.txt", "Code from this reply (ts)"],
      ["code-2.txt", "Code from this reply"],
    ]);
    expect(files[0]!.content).toBe(big);
    expect(chunks.map((c) => c.plain).join("\n\n")).toBe(
      `Here:\n\n${CODE_PLACEHOLDER}\n\nAnd a second:\n\n${CODE_PLACEHOLDER}\n\nDone.`,
    );

    const medium = Array.from({ length: 80 }, (_, i) => `line ${i} ${"y".repeat(25)}`).join("\n");
    expect(medium.length).toBeLessThan(3800);
    const split = expectValid(`\`\`\`js\n${medium}\n\`\`\``);
    expect(split.length).toBe(2);
    expect(split.every((c) => c.html.startsWith('<pre><code class="language-js">') && c.files.length === 0)).toBe(true);
    // Cut at a line boundary: no line is split across chunks.
    expect(split.map((c) => c.plain).join("\n")).toBe(medium);
  });

  test("empty or whitespace-only Markdown renders to nothing", () => {
    expect(renderReply("")).toEqual([]);
    expect(renderReply("  \n\n \n")).toEqual([]);
  });
});
