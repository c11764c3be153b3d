import { describe, expect, test } from "bun:test";
import type { CommandDef } from "citty";
import { resolveValue } from "../../src/cli/command.ts";
import { fermix } from "../../src/cli/command-tree.ts";
import { type HelpIo, runCli } from "../../src/cli/dispatch.ts";
import { asFermixError, exitCodeFor } from "../../src/cli/exit.ts";

/**
 * The citty tree in src/main.ts, every lazy subcommand loaded, driven in-process through the dispatcher (help
 * and usage go to the io it is given; nothing here reaches a verb's run).
 */
type Entry = { path: string[]; cmd: CommandDef<any>; description: string; hidden: boolean };

async function entries(cmd: CommandDef<any>, path: string[] = [], hidden = false): Promise<Entry[]> {
  const meta = await resolveValue(cmd.meta ?? {});
  const here: Entry = { path, cmd, description: meta.description ?? "", hidden: hidden || meta.hidden === true };
  const subs = cmd.subCommands ? await resolveValue(cmd.subCommands) : {};
  const below = await Promise.all(
    Object.entries(subs).map(async ([name, sub]) => entries(await resolveValue(sub), [...path, name], here.hidden)),
  );
  return [here, ...below.flat()];
}

const tree = await entries(fermix);

async function cli(argv: string[]) {
  let out = "";
  let err = "";
  const io: HelpIo = {
    out: async (text) => {
      out += text;
    },
    err: async (text) => {
      err += text;
    },
  };
  try {
    const code = await runCli(fermix, argv, io);
    return { code, out, err };
  } catch (thrown) {
    // What main.ts does with it: src/cli/exit.ts maps the error to its exit code.
    const error = asFermixError(thrown);
    return { code: exitCodeFor(error), out, err: `${err}fermix: ${error.message}\n`, command: error.data.command };
  }
}

describe("the command tree", () => {
  test("holds every verb, nested sub-verbs, and the hidden ones", () => {
    const paths = tree.map((e) => e.path.join(" "));
    expect(paths).toEqual(
      expect.arrayContaining(["ask", "plugins enable", "plugins auth set", "plugins config set", "sandbox mode"]),
    );
    expect(paths).toEqual(expect.arrayContaining(["skills view", "service install", "memory restore", "grant path"]));
    expect(paths).toEqual(expect.arrayContaining(["jobs list", "jobs show", "jobs runs", "jobs run", "jobs remove"]));
    expect(paths).toEqual(expect.arrayContaining(["channels status", "voice status"]));
    expect(tree.filter((e) => e.hidden && e.path.length === 1).map((e) => e.path[0])).toEqual(
      expect.arrayContaining(["verify-release", "complete", "debug"]),
    );
  });

  test("every verb and sub-verb has a one-line description", () => {
    const bad = tree.filter((e) => !e.description.trim() || e.description.includes("\n")).map((e) => e.path.join(" "));
    expect(bad).toEqual([]);
  });

  test("`fermix <path…> --help` exits 0 and prints that command's usage, for every command", async () => {
    for (const { path } of tree.filter((e) => e.path.length)) {
      const r = await cli([...path, "--help"]);
      expect({ path, code: r.code, err: r.err }).toEqual({ path, code: 0, err: "" });
      expect(r.out).toStartWith(`Usage: fermix ${path.join(" ")}`);
      expect(r.out).toContain("-h, --help");
    }
  });

  test("fermix --help lists the verbs with their arguments, and never a hidden one", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toStartWith("fermix — a personal AI agent in one binary\n\nUsage: fermix <command> [options]\n");
    for (const line of [
      "ask [words…]",
      "plugins <command>",
      "grant path PATH",
      "completion SHELL",
      "help [command…]",
    ]) {
      expect(r.out).toContain(`\n  ${line} `);
    }
    expect(r.out).toContain("\n  chat [words…] ");
    expect(r.out).toContain('fermix ask "what is a monad, in two sentences?"');
    for (const hidden of ["verify-release", "debug", "complete "]) expect(r.out).not.toContain(`\n  ${hidden}`);
    expect((await cli(["help"])).out).toBe(r.out);
  });

  test("fermix plugins --help lists its subcommands with their arguments", async () => {
    const r = await cli(["plugins", "--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toStartWith("Usage: fermix plugins <command>\n");
    for (const line of ["enable NAME", "install NAME[@VER]", "pin NAME@VER", "doctor [NAME]", "auth <command>"]) {
      expect(r.out).toContain(`\n  ${line} `);
    }
  });

  test("a verb's help keeps the value hints, negations and examples", async () => {
    const r = await cli(["ask", "--help"]);
    expect(r.out).toStartWith("Usage: fermix ask [options] [words…]\n\nAsk once and print the answer.\n");
    expect(r.out).toContain("  -s, --session ID ");
    expect(r.out).toContain("  -t, --timeout MS ");
    expect(r.out).toContain("--no-daemon: run in-process");
    expect(r.out).toContain("\nExamples:\n  fermix ask ");
    expect((await cli(["help", "plugins", "auth", "set"])).out).toStartWith(
      "Usage: fermix plugins auth set [--stdin] [--json] NAME\n",
    );
  });

  test("a group's help describes the group, even where it runs a default subcommand", async () => {
    const r = await cli(["sandbox", "--help"]);
    expect(r.out).toStartWith("Usage: fermix sandbox [<command>]\n");
    expect(r.out).toMatch(/\n {2}status +Show .*\(the default\)\n/);
    expect(r.out).toContain("\n  mode strict|standard|open ");
  });

  test("an unknown option exits 2 with a sentence naming it, and points at that command's help", async () => {
    expect(await cli(["plugins", "enable", "github", "--bogus"])).toMatchObject({
      code: 2,
      err: "fermix: plugins enable: unknown option --bogus\n",
      command: "plugins enable",
    });
    expect(await cli(["ask", "-q", "hi"])).toMatchObject({ code: 2, err: "fermix: ask: unknown option -q\n" });
    expect(await cli(["ask", "--json=yes", "hi"])).toMatchObject({
      code: 2,
      err: "fermix: ask: --json takes no value\n",
    });
    expect(await cli(["ask", "hi", "-s"])).toMatchObject({ code: 2, err: "fermix: ask: --session needs a value\n" });
  });

  test("a missing required argument, or one too many, exits 2 with a sentence naming it", async () => {
    expect(await cli(["plugins", "enable"])).toMatchObject({
      code: 2,
      err: "fermix: plugins enable: missing NAME: the plugin\n",
    });
    expect(await cli(["sandbox", "explain"])).toMatchObject({
      code: 2,
      err: "fermix: sandbox explain: missing PATH: the path to explain\n",
    });
    expect(await cli(["plugins", "config", "set", "github", "token"])).toMatchObject({
      code: 2,
      err: "fermix: plugins config set: missing VALUE: its new value\n",
    });
    expect(await cli(["skills", "view", "a", "b", "c"])).toMatchObject({
      code: 2,
      err: 'fermix: skills view: unexpected argument "c"\n',
    });
  });

  test("no verb, an unknown verb, a group without its subcommand: usage on stderr, exit 2", async () => {
    const none = await cli([]);
    expect(none).toMatchObject({ code: 2, out: "" });
    expect(none.err).toStartWith("fermix — a personal AI agent in one binary\n\nUsage: fermix <command> [options]\n");
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toStartWith("fermix: unknown command: frobnicate\nfermix — a personal AI agent");
    const group = await cli(["plugins"]);
    expect(group).toMatchObject({ code: 2, out: "" });
    expect(group.err).toStartWith("Usage: fermix plugins <command>\n");
    expect(await cli(["plugins", "frob"])).toMatchObject({
      code: 2,
      err: expect.stringContaining('fermix: plugins: unknown subcommand "frob" (list, catalog, show, installed, '),
    });
    expect(await cli(["help", "frobnicate"])).toMatchObject({ code: 2, err: "fermix: unknown command: frobnicate\n" });
  });

  test("`--` ends the options, so a word after it that looks like one is a word", async () => {
    // After `--`, "--help" is the SHELL word, not a request for help.
    const r = await cli(["completion", "--", "--help"]);
    expect(r).toMatchObject({ code: 2, err: 'fermix: completion: SHELL is one of bash, zsh, fish (got "--help")\n' });
  });
});
