import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  hiddenLine,
  readSecretInput,
  type SecretInputIo,
  type StdinKind,
} from "../../../src/plugins/settings/read-secret-input.ts";

function io(kind: StdinKind, input: string) {
  const seen: string[] = [];
  const fake: SecretInputIo = {
    stdinKind: async () => kind,
    readStdin: async () => {
      seen.push("stdin");
      return input;
    },
    promptHidden: async (prompt) => {
      seen.push(`prompt:${prompt}`);
      return input;
    },
  };
  return { fake, seen };
}

describe("reading a secret for auth set", () => {
  test("piped or from a file: one trailing newline is dropped, the rest kept", async () => {
    expect(await readSecretInput({ name: "slack", io: io("pipe", "xoxb-1\n").fake })).toBe("xoxb-1");
    expect(await readSecretInput({ name: "slack", io: io("file", "xoxb-1\r\n").fake })).toBe("xoxb-1");
    expect(await readSecretInput({ name: "slack", io: io("pipe", "xoxb-1").fake })).toBe("xoxb-1");
    expect(await readSecretInput({ name: "slack", io: io("pipe", " a b\n\n").fake })).toBe(" a b\n");
  });

  test("empty input and a closed stdin are refused with the pipe hint", async () => {
    for (const input of ["", "\n", "  \n"]) {
      await expect(readSecretInput({ name: "slack", io: io("pipe", input).fake })).rejects.toThrow(
        'no secret was given for slack; pipe it in: echo "$TOKEN" | fermix plugins auth set slack',
      );
    }
    await expect(readSecretInput({ name: "slack", io: io("closed", "").fake })).rejects.toThrow("stdin is closed");
  });

  test("a terminal gets a no-echo prompt, worded by the manifest when it says", async () => {
    const t = io("tty", "xoxb-typed");
    expect(await readSecretInput({ name: "slack", prompt: "Slack bot token", io: t.fake })).toBe("xoxb-typed");
    expect(t.seen).toEqual(["prompt:Slack bot token: "]);
  });

  test("a value on the command line is refused before anything is read, and not echoed back", async () => {
    const t = io("pipe", "x\n");
    const attempt = readSecretInput({ name: "slack", extra: ["xoxb-on-argv"], io: t.fake });
    await expect(attempt).rejects.toMatchObject({ code: "usage" });
    const message = await attempt.catch((e: Error) => e.message);
    expect(message).toContain("secrets are read from stdin so they don't land in shell history");
    expect(message).toContain('echo "$TOKEN" | fermix plugins auth set slack');
    expect(message).not.toContain("xoxb-on-argv");
    expect(t.seen).toEqual([]);
    expect(await readSecretInput({ name: "slack", extra: ["--stdin"], io: t.fake })).toBe("x");
  });

  test("the hidden prompt's keys: Enter ends, Backspace erases, Ctrl-C cancels, Ctrl-D on empty cancels", () => {
    const line = hiddenLine();
    expect(line.feed("ab")).toBe("more");
    expect(line.feed("\u007fc\u001b")).toBe("more");
    expect(line.feed("d\r")).toBe("done");
    expect(line.value()).toBe("acd");
    const pasted = hiddenLine();
    expect(pasted.feed("xoxb-pasted\n")).toBe("done");
    expect(pasted.value()).toBe("xoxb-pasted");
    expect(hiddenLine().feed("x\u0003")).toBe("cancel");
    expect(hiddenLine().feed("\u0004")).toBe("cancel");
  });

  test("a real process reads a real pipe", async () => {
    const main = join(import.meta.dir, "_read-secret-main.ts");
    const run = async (args: string[], input: string) => {
      const proc = Bun.spawn([process.execPath, main, ...args], {
        stdin: new TextEncoder().encode(input),
        stdout: "pipe",
        stderr: "inherit",
      });
      return JSON.parse(await new Response(proc.stdout).text());
    };
    expect(await run([], "xoxb-piped\n")).toEqual({ value: "xoxb-piped" });
    expect((await run(["xoxb-argv"], "xoxb-piped\n")).error).toContain("takes no value on the command line");
  });
});
