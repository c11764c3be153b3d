import { describe, expect, test } from "bun:test";
import { extractCodeBlock } from "../../src/cli/_ask-extract.ts";
import { usageLine } from "../../src/cli/_ask-usage.ts";
import { parseArgs } from "../../src/cli/args.ts";
import ask from "../../src/cli/ask.ts";
import { resolveValue } from "../../src/cli/command.ts";
import { renderHelp } from "../../src/cli/usage.ts";
import { sniffAttachmentType } from "../../src/media/sniff.ts";
import { PDF, PNG } from "./_ask-files.ts";

describe("ask -x: fenced code blocks", () => {
  test("the first and the last block, without their info strings", () => {
    const answer = "intro\n```ts\nconst a = 1;\n```\nmiddle\n```\nsecond\n```\n";
    expect(extractCodeBlock(answer, "first")).toBe("const a = 1;");
    expect(extractCodeBlock(answer, "last")).toBe("second");
  });

  test("a longer fence holds a shorter one; tildes close only tildes", () => {
    const answer = "````md\n```js\nx\n```\n````\n~~~\na ```\n~~~";
    expect(extractCodeBlock(answer, "first")).toBe("```js\nx\n```");
    expect(extractCodeBlock(answer, "last")).toBe("a ```");
  });

  test("an indented fence's indentation is taken off its lines; an unclosed block runs to the end", () => {
    expect(extractCodeBlock("  ```\n  two\n    four\n  ```", "first")).toBe("two\n  four");
    expect(extractCodeBlock("cut:\n```sh\nmake &&", "first")).toBe("make &&");
  });

  test("no block: undefined; inline code is not a block", () => {
    expect(extractCodeBlock("use `ls` here", "first")).toBeUndefined();
    expect(extractCodeBlock("``` not ` a fence\ntext", "first")).toBeUndefined();
  });
});

describe("ask -u: the usage line", () => {
  test("cached and reasoning shares only when there were any", () => {
    const usage = { input_tokens: 1234, cached_input_tokens: 1000, output_tokens: 56, reasoning_tokens: 12 };
    expect(usageLine(usage)).toBe("usage: 1,234 input (1,000 cached), 56 output (12 reasoning) tokens");
    expect(usageLine({ ...usage, cached_input_tokens: 0, reasoning_tokens: 0 })).toBe(
      "usage: 1,234 input, 56 output tokens",
    );
  });
});

describe("ask --attach: the type from the bytes", () => {
  test("pictures and PDFs by their signatures; anything else is unknown", () => {
    expect(sniffAttachmentType(PNG)).toBe("image/png");
    expect(sniffAttachmentType(PDF)).toBe("application/pdf");
    expect(sniffAttachmentType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniffAttachmentType(Buffer.from("GIF89a......"))).toBe("image/gif");
    expect(sniffAttachmentType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniffAttachmentType(Buffer.from("PK\x03\x04 a zip"))).toBeUndefined();
  });

  test("-a repeats: every value is kept, in order", async () => {
    const args = await resolveValue(ask.args!);
    const meta = await resolveValue(ask.meta!);
    const parsed = parseArgs(
      ["-a", "one.png", "--attach=two.pdf", "-a", "-", "hi"],
      args,
      "ask",
      true,
      meta.repeatable,
    );
    expect(parsed.attach).toEqual(["one.png", "two.pdf", "-"]);
    expect(parsed.session).toBeUndefined();
  });
});

test("ask --help lists its exit codes", async () => {
  const help = await renderHelp([
    { name: "fermix", cmd: {} },
    { name: "ask", cmd: ask },
  ]);
  expect(help).toContain(
    [
      "Exit codes:",
      "  0  answered",
      "  1  failed: the provider or the turn failed, or --extract found no code block",
      "  2  usage: a bad option, file or tool name; nothing was sent",
      "  3  the daemon is required (--daemon) but not running",
      "  4  the answer did not match --schema",
      "  5  refused: a budget ([fermix_core.budget]) is used up; nothing was sent",
    ].join("\n"),
  );
});
