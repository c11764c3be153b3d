import { describe, expect, test } from "bun:test";
import { renderReply, SLACK_TEXT_LIMIT } from "../../../src/channels/slack/mrkdwn.ts";

describe("Markdown → Slack mrkdwn", () => {
  test("styles become Slack's single markers; &, < and > are escaped; links are <url|label>", () => {
    const md = [
      "# Plan",
      "",
      "Hello **owner**, see [the docs](https://example.com/a?b=1) and `a<b>`; *soon* ~~not~~ & done.",
      "",
      "- one",
      "- two",
      "",
      "> quoted **bold**",
      "> second line",
    ].join("\n");
    expect(renderReply(md)).toEqual([
      [
        "*Plan*",
        "",
        "Hello *owner*, see <https://example.com/a?b=1|the docs> and `a&lt;b&gt;`; _soon_ ~not~ &amp; done.",
        "",
        "• one",
        "• two",
        "",
        "> quoted *bold*",
        "> second line",
      ].join("\n"),
    ]);
  });

  test("code blocks lose their language, tables become a code block, a bare link stays bare", () => {
    const md = "```ts\nconst x = a && b;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<https://example.com>";
    expect(renderReply(md)).toEqual([
      "```\nconst x = a &amp;&amp; b;\n```\n\n```\na | b\n--+--\n1 | 2\n```\n\n<https://example.com>",
    ]);
  });

  test("a styled run keeps its markers against the text, one line at a time", () => {
    expect(renderReply("**bold **then")).toEqual(["**bold **then"]);
    expect(renderReply("a **b c** d")).toEqual(["a *b c* d"]);
    expect(renderReply("*x*\n**y**")).toEqual(["_x_\n*y*"]);
  });

  test("a long reply is cut into messages of at most 40,000 characters, in order, at paragraph breaks", () => {
    const paragraphs = Array.from({ length: 300 }, (_, i) => `**Part ${i + 1}.** ${"Plain words & more. ".repeat(15)}`);
    const chunks = renderReply(paragraphs.join("\n\n"));
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT);
    // Every chunk begins at a paragraph, and together they hold every part once, in order.
    for (const chunk of chunks) expect(chunk).toStartWith("*Part ");
    const joined = chunks.join("\n\n");
    const at = paragraphs.map((_, i) => joined.indexOf(`*Part ${i + 1}.*`));
    expect(at.every((p, i) => p >= 0 && (i === 0 || p > at[i - 1]!))).toBe(true);
  });

  test("a single block longer than a message is cut at a line, escapes counted; a code block goes on as its own", () => {
    const code = `\`\`\`\n${"line & < >\n".repeat(8000)}\`\`\``;
    const chunks = renderReply(code);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT);
      expect(chunk).toStartWith("```\nline &amp; &lt; &gt;");
      expect(chunk).toEndWith("&gt;\n```");
    }
    const lines = chunks.map((c) => c.split("\n").length - 2).reduce((a, b) => a + b, 0);
    expect(lines).toBe(8000);
    // Escapes alone can make the text five times longer: still no chunk over the limit.
    const ampersands = renderReply("&".repeat(100_000));
    expect(ampersands.every((c) => c.length <= SLACK_TEXT_LIMIT)).toBe(true);
    expect(ampersands.join("").length).toBe(500_000);
  });

  test("an empty answer is no message", () => {
    expect(renderReply("  \n\n ")).toEqual([]);
  });
});
