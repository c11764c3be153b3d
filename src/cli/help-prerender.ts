import { commandChains } from "./command-chains.ts";
import { fermix } from "./command-tree.ts";
import { renderHelp } from "./usage.ts";

/**
 * Commands' `--help` texts, keyed by the words that name it ("" for fermix itself, "plugins auth set"), as the
 * declarations render them: `ask`'s alone, or every other command's. A Bun macro (src/cli/help-table.ts,
 * src/cli/help-table-ask.ts): it runs when the binary is built, so the binary carries the finished texts and
 * `fermix ask --help` prints one without loading the verb's declaration and the renderer (~1.5 ms of a ~9 ms process,
 * issue 31). Help depends on the declarations alone, never on the machine.
 */
export async function renderedHelpTable(part: "ask" | "others"): Promise<Record<string, string>> {
  const table: Record<string, string> = {};
  for (const { words, chain } of await commandChains(fermix)) {
    if (helpTableOf(words) === part) table[words] = await renderHelp(chain);
  }
  return table;
}

/** Which table holds the help of the command named by `words`: ask's own (its first word is `ask`), or the others'. */
export function helpTableOf(words: string): "ask" | "others" {
  return words === "ask" || words.startsWith("ask ") ? "ask" : "others";
}
