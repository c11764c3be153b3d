import { onBun } from "../runtime/host.ts";
import { asksForHelp, beforeWords, isHelpFlag } from "./help-request.ts";

/**
 * The pre-rendered help (src/cli/help-table.ts) when the arguments are only command words and `--help`/`-h`
 * (`fermix plugins list --help`); undefined for anything the command tree must walk to understand (options, an
 * alias, words that are a command's arguments), which src/cli/dispatch.ts then renders the long way, to the same text.
 * Deno has no macros: under Deno the table does not exist and help always goes the long way.
 */
export async function prerenderedHelp(argv: readonly string[]): Promise<string | undefined> {
  if (!onBun || !asksForHelp(argv)) return undefined;
  const words = beforeWords(argv).filter((arg) => !isHelpFlag(arg));
  if (words.some((word) => word.startsWith("-"))) return undefined;
  const { HELP_TABLE } = await import("./help-table.ts");
  const key = words.join(" ");
  return Object.hasOwn(HELP_TABLE, key) ? HELP_TABLE[key] : undefined;
}
