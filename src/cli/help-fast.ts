import { entryOnBun } from "../runtime/entry-probes.ts";

/**
 * The pre-rendered help (src/cli/help-table.ts, and ask's own in src/cli/help-table-ask.ts) when the arguments are
 * only command words and `--help`/`-h` (`fermix plugins list --help`); undefined for anything the command tree must
 * walk to understand (options, an alias, words that are a command's arguments), which src/cli/dispatch.ts then renders
 * the long way, to the same text. Deno has no macros: under Deno the tables do not exist and help always goes the long
 * way.
 *
 * It imports only runtime/entry-probes.ts and, on demand, a table, and only src/main.ts imports it, so in the binary
 * it is part of the entry's chunk (as cli/ask-early.ts is): help-request.ts and runtime/host.ts were two chunks
 * loaded before the table, ~25 page faults of `ask --help`'s. So it reads `--help` before `--` as help-request.ts
 * does (test/cli/help-table.test.ts holds the two equal).
 */
export async function prerenderedHelp(argv: readonly string[]): Promise<string | undefined> {
  if (!entryOnBun()) return undefined;
  // Plain loops rather than indexOf, filter, some and join: those are the engine's own JavaScript, compiled on their
  // first call in a process (cli/ask-early.ts says more), and here every one would be a first call.
  const words: string[] = [];
  let helpFlags = 0;
  for (let i = 0; i < argv.length && argv[i] !== "--"; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") helpFlags++;
    else if (arg.startsWith("-")) return undefined;
    else words.push(arg);
  }
  if (helpFlags === 0) return undefined;
  // help-prerender.ts's helpTableOf, which this file does not import (see above); the test holds the two equal.
  const table =
    words[0] === "ask"
      ? (await import("./help-table-ask.ts")).ASK_HELP_TABLE
      : (await import("./help-table.ts")).HELP_TABLE;
  let key = words[0] ?? "";
  for (let i = 1; i < words.length; i++) key += ` ${words[i]}`;
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
