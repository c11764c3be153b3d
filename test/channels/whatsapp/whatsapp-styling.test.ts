import { describe, expect, test } from "bun:test";
import { replyChunks, WHATSAPP_TEXT_LIMIT } from "../../../src/channels/whatsapp/reply-chunks.ts";
import { styleInline, styleMarkdown } from "../../../src/channels/whatsapp/whatsapp-styling.ts";

describe("WhatsApp styling", () => {
  test("emphasis, strike and code become WhatsApp's markers", () => {
    expect(styleInline("**bold**, *italic*, _italic_, ~~gone~~ and `npm i`")).toBe(
      "*bold*, _italic_, _italic_, ~gone~ and ```npm i```",
    );
    expect(styleInline("***both*** and __strong__")).toBe("*_both_* and *strong*");
  });

  test("no intra-word emphasis; code, URLs and escapes are never restyled", () => {
    expect(styleInline("snake_case_name and 2*3*4")).toBe("snake_case_name and 2*3*4");
    expect(styleInline("`**not bold**` and https://x.com/a__b__c and \\*literal\\*")).toBe(
      "```**not bold**``` and https://x.com/a__b__c and *literal*",
    );
  });

  test("links become label: url; a bare or angle-bracketed URL stays a URL", () => {
    expect(styleInline("see [the **docs**](https://example.com/a_(b)) or <https://y.org>")).toBe(
      "see the *docs*: https://example.com/a_(b) or https://y.org",
    );
    expect(styleInline("[https://z.io](https://z.io)")).toBe("https://z.io");
  });

  test("headings are bold lines, bullets •, quotes kept, rules a line, fences lose their language", () => {
    expect(
      styleMarkdown(
        "## A **big** heading\n\n- one\n* two\n  + nested\n1. first\n\n> said\n\n---\n\n```ts\nconst a = 1;\n```",
      ),
    ).toBe("*A big heading*\n\n• one\n• two\n  • nested\n1. first\n\n> said\n\n──────────\n\n```\nconst a = 1;\n```");
  });

  test("a pipe table is an aligned monospace block", () => {
    expect(styleMarkdown("| Name | Qty |\n|---|--:|\n| **apples** | `3` |\n| kiwi | 12 |")).toBe(
      "```\nName    Qty\n------  ---\napples  3\nkiwi    12\n```",
    );
  });
});

describe("WhatsApp reply chunks", () => {
  test("a short reply is one message", () => {
    expect(replyChunks("Hello **there**.")).toEqual(["Hello *there*."]);
  });

  test("long replies are cut between paragraphs, every message within 4,096 characters, nothing lost", () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(60).trim()}`);
    const chunks = replyChunks(paragraphs.join("\n\n"));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
    expect(chunks.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  test("a code block longer than a message is cut between lines, each part fenced", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(20)}`);
    const chunks = replyChunks(`\`\`\`\n${lines.join("\n")}\n\`\`\``);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
      expect(chunk).toStartWith("```\n");
      expect(chunk).toEndWith("\n```");
    }
    expect(chunks.map((c) => c.slice(4, -4)).join("\n")).toBe(lines.join("\n"));
  });

  test("one unbroken paragraph is cut at a sentence or a space, never inside a surrogate pair", () => {
    const text = "Sentence one is here. ".repeat(400);
    const chunks = replyChunks(text);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
    expect(chunks[0]).toEndWith("here.");
    const emoji = "😀".repeat(3000);
    const cut = replyChunks(emoji);
    expect(cut.join("")).toBe(emoji);
    for (const chunk of cut) expect(chunk.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
  });
});
