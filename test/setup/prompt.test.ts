import { describe, expect, test } from "bun:test";
import { createPrompter, type SetupIo } from "../../src/setup/prompt.ts";

/** An io over fixed chunks, recording what was written and every raw-mode switch. */
function io(chunks: Array<string | Uint8Array>) {
  const written: string[] = [];
  const raw: boolean[] = [];
  const events: string[] = [];
  const value: SetupIo = {
    input: (async function* () {
      yield* chunks;
    })(),
    write: async (text) => {
      written.push(text);
      events.push(`write ${JSON.stringify(text)}`);
    },
    isTTY: true,
    setRawMode: (on) => {
      raw.push(on);
      events.push(`raw ${on}`);
    },
  };
  return { value, written, raw, events };
}

describe("createPrompter", () => {
  test("lines come one per question, CRLF or LF, split across chunks or several in one", async () => {
    const t = io(["open", "ai\r\ngpt-5.5\nAda", "\n", "last"]);
    const p = createPrompter(t.value);
    expect(await p.line("Provider: ")).toBe("openai");
    expect(await p.line("Model: ")).toBe("gpt-5.5");
    expect(await p.line("Name: ")).toBe("Ada");
    expect(await p.line("Zone: ")).toBe("last");
    expect(t.written).toEqual(["Provider: ", "Model: ", "Name: ", "Zone: "]);
    expect(t.raw).toEqual([]);
    await expect(p.line("More: ")).rejects.toMatchObject({ code: "cancelled" });
  });

  test("a hidden line switches raw mode on and off around it and writes nothing of what was typed", async () => {
    const secret = "sk-test-hidden-0123456789";
    const t = io([new TextEncoder().encode(`${secret}x\u007f`), "\rnext\n"]);
    const p = createPrompter(t.value);
    expect(await p.hidden("Key: ")).toBe(secret);
    // Echo is off before the question shows, so a key typed the moment it appears is not echoed either.
    expect(t.events).toEqual(["raw true", 'write "Key: "', "raw false", 'write "\\n"']);
    // what followed the Enter is the next answer
    expect(await p.line("Name: ")).toBe("next");
  });

  test("Ctrl-C cancels a hidden line, and raw mode is switched off again", async () => {
    const t = io(["sk-abc\u0003"]);
    await expect(createPrompter(t.value).hidden("Key: ")).rejects.toMatchObject({
      code: "cancelled",
      message: "setup was cancelled; nothing was written",
    });
    expect(t.raw).toEqual([true, false]);
  });

  test("rest reads the whole input (a piped key) and refuses one too large to be a key", async () => {
    expect(await createPrompter(io(["sk-", "piped\n"]).value).rest(1024)).toBe("sk-piped\n");
    await expect(createPrompter(io(["x".repeat(2048)]).value).rest(1024)).rejects.toMatchObject({
      code: "usage",
      message: "setup: stdin holds more than 1 KiB; that is not an API key",
    });
  });
});
