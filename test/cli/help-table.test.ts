/**
 * `--help` comes pre-rendered in the binary (src/cli/help-table.ts, a build-time macro) so it prints without
 * loading the command tree (issue 31). The table must hold every command and say exactly what walking the tree
 * and rendering says; the binary must print the same; anything the fast path cannot read falls back to the walk.
 */
import { describe, expect, test } from "bun:test";
import { commandChains } from "../../src/cli/command-chains.ts";
import { fermix } from "../../src/cli/command-tree.ts";
import { runCli } from "../../src/cli/dispatch.ts";
import { prerenderedHelp } from "../../src/cli/help-fast.ts";
import { helpTableOf } from "../../src/cli/help-prerender.ts";
import { asksForHelp } from "../../src/cli/help-request.ts";
import { HELP_TABLE as OTHERS } from "../../src/cli/help-table.ts";
import { ASK_HELP_TABLE } from "../../src/cli/help-table-ask.ts";
import { renderHelp } from "../../src/cli/usage.ts";
import { runFermix } from "../fixture/cli.ts";

/** Both tables as one: ask's own and every other command's. */
const HELP_TABLE: Readonly<Record<string, string>> = { ...OTHERS, ...ASK_HELP_TABLE };

/** What the command tree itself prints for these arguments (the walk and the renderer, no table). */
async function walkedHelp(argv: string[]): Promise<string> {
  const printed: string[] = [];
  const io = { out: async (text: string) => void printed.push(text), err: async () => {} };
  expect(await runCli(fermix, argv, io)).toBe(0);
  return printed.join("");
}

describe("the pre-rendered help", () => {
  test("holds every command, each as the declarations render it", async () => {
    const commands = await commandChains(fermix);
    expect(Object.keys(HELP_TABLE).sort()).toEqual(commands.map((c) => c.words).sort());
    for (const { words, chain } of commands) expect(HELP_TABLE[words]).toBe(await renderHelp(chain));
  });

  test("ask's help is a table of its own, which holds ask's commands and nothing else", () => {
    expect(Object.keys(ASK_HELP_TABLE)).toContain("ask");
    expect(Object.keys(ASK_HELP_TABLE).filter((words) => helpTableOf(words) !== "ask")).toEqual([]);
    expect(Object.keys(OTHERS).filter((words) => helpTableOf(words) !== "others")).toEqual([]);
    // help-fast.ts picks the table by the first word, as helpTableOf does.
    for (const words of ["ask", "ask x", "asking", "plugins ask", ""]) {
      expect({ words, table: helpTableOf(words) }).toEqual({
        words,
        table: words.split(" ")[0] === "ask" ? "ask" : "others",
      });
    }
  });

  test("answers command words and --help/-h only; options, aliases and a verb's own words go the long way", async () => {
    expect(await prerenderedHelp(["ask", "--help"])).toBe(HELP_TABLE.ask);
    expect(await prerenderedHelp(["-h"])).toBe(HELP_TABLE[""]);
    expect(await prerenderedHelp(["plugins", "auth", "-h"])).toBe(HELP_TABLE["plugins auth"]);
    expect(await prerenderedHelp(["ask", "--model", "m", "--help"])).toBeUndefined();
    expect(await prerenderedHelp(["ask", "what", "is", "--help"])).toBeUndefined();
    expect(await prerenderedHelp(["constructor", "--help"])).toBeUndefined();
    expect(asksForHelp(["ask", "--", "--help"])).toBe(false);
    expect(await prerenderedHelp(["ask", "--", "--help"])).toBeUndefined();
  });

  // help-fast.ts reads help flags itself, to stay in the entry's chunk (it says why): the same reading as the tree's.
  test("asks for help exactly when help-request.ts says the arguments do", async () => {
    const cases = [
      ["ask", "--help"],
      ["-h"],
      ["ask", "--", "-h"],
      ["--", "--help"],
      ["ask", "x"],
      [],
      ["plugins", "-h", "--"],
    ];
    for (const argv of cases) {
      expect({ argv, help: (await prerenderedHelp(argv)) !== undefined }).toEqual({ argv, help: asksForHelp(argv) });
    }
  });

  test("the long way prints the same text for the cases the table leaves to it", async () => {
    expect(await walkedHelp(["ask", "--model", "m", "--help"])).toBe(HELP_TABLE.ask!);
    expect(await walkedHelp(["ask", "what", "is", "--help"])).toBe(HELP_TABLE.ask!);
  });

  test("the binary prints the table's text for every command", async () => {
    for (const { words } of await commandChains(fermix)) {
      const argv = [...(words ? words.split(" ") : []), "--help"];
      const { code, stdout } = await runFermix(argv);
      expect({ argv, code, stdout }).toEqual({ argv, code: 0, stdout: HELP_TABLE[words]! });
    }
  });
});
