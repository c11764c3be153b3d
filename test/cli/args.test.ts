import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { parseArgs } from "../../src/cli/args.ts";
import ask from "../../src/cli/ask.ts";
import { resolveValue } from "../../src/cli/command.ts";

const askArgs = (await resolveValue(ask.args ?? {})) as ArgsDef;
const parse = (argv: string[]) => parseArgs(argv, askArgs, "ask", true);

describe("parseArgs: strict parsing of a verb's declared args", () => {
  test("long and short options, with the value attached or next", () => {
    expect(parse(["--session", "work", "-t", "5000", "hi"])).toMatchObject({ session: "work", timeout: "5000" });
    expect(parse(["--session=work", "-t5000", "hi"])).toMatchObject({ session: "work", timeout: "5000" });
    // The next word is the value, whatever it looks like.
    expect(parse(["-s", "-x", "hi"])).toMatchObject({ session: "-x", _: ["hi"] });
  });

  test("--no-flag negates a boolean; --flag sets it", () => {
    expect(parse(["--no-daemon", "--no-stdin", "hi"])).toMatchObject({ daemon: false, stdin: false });
    expect(parse(["--daemon", "--json", "hi"])).toMatchObject({ daemon: true, json: true });
    expect(() => parse(["--no-session", "hi"])).toThrow("ask: unknown option --no-session");
  });

  test("positional words are kept exactly as given, and `--` ends the options", () => {
    const words = ["what is", "  a monad? ", "-", "--", "--json", "-s", "x"];
    expect(parse(words)._).toEqual(["what is", "  a monad? ", "-", "--json", "-s", "x"]);
    expect(parse(words).json).toBeUndefined();
    expect(parse(["hi", "there"])).toMatchObject({ words: "hi", _: ["hi", "there"] });
  });

  test("usage errors name the option or argument", () => {
    expect(() => parse(["--bogus"])).toThrow("ask: unknown option --bogus");
    expect(() => parse(["-q"])).toThrow("ask: unknown option -q");
    expect(() => parse(["--json=1"])).toThrow("ask: --json takes no value");
    expect(() => parse(["--session"])).toThrow("ask: --session needs a value");
    expect(() => parse(["--session="])).toThrow("ask: --session needs a value");
    const def: ArgsDef = {
      name: { type: "positional", required: true, description: "the plugin" },
      level: { type: "enum", options: ["info", "warn"], description: "a level" },
    };
    expect(() => parseArgs([], def, "plugins enable")).toThrow("plugins enable: missing NAME: the plugin");
    expect(() => parseArgs(["a", "b"], def, "plugins enable")).toThrow('plugins enable: unexpected argument "b"');
    expect(() => parseArgs(["a", "--level", "loud"], def, "x")).toThrow(
      'x: --level takes one of info, warn (got "loud")',
    );
    expect(parseArgs(["a", "--level=warn"], def, "x")).toMatchObject({ name: "a", level: "warn", _: ["a"] });
  });
});
