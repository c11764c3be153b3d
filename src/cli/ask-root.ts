import ask from "./ask.ts";
import { defineCommand } from "./command.ts";

/**
 * The command tree as `fermix ask …` walks it: the root with ask alone, so the most frequent command (scripts call
 * it in loops) loads neither the table of every verb nor a lazy step to reach its own (issue 31). Walking, parsing,
 * usage errors and help for ask are the dispatcher's, as from the whole tree (src/cli/command-tree.ts), which
 * src/main.ts uses for every other command.
 */
export const askRoot = defineCommand({ meta: { name: "fermix" }, subCommands: { ask } });
