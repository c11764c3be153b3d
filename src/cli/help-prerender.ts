import { commandChains } from "./command-chains.ts";
import { fermix } from "./command-tree.ts";
import { renderHelp } from "./usage.ts";

/**
 * Every command's `--help` text, keyed by the words that name it ("" for fermix itself, "plugins auth set"), as the
 * declarations render it. A Bun macro (src/cli/help-table.ts): it runs when the binary is built, so the binary
 * carries the finished texts and `fermix ask --help` prints one without loading the verb's declaration and the
 * renderer (~1.5 ms of a ~9 ms process, issue 31). Help depends on the declarations alone, never on the machine.
 */
export async function renderedHelpTable(): Promise<Record<string, string>> {
  const table: Record<string, string> = {};
  for (const { words, chain } of await commandChains(fermix)) table[words] = await renderHelp(chain);
  return table;
}
