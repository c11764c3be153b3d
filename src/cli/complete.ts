import { defineCommand } from "./command.ts";
import type { RunData } from "./dispatch.ts";
import { writeOut } from "./output.ts";

/**
 * Hidden: what the completion scripts run on each TAB, `fermix complete -- WORDS…` (the words after `fermix`,
 * the last one being completed). Prints one `value<TAB>description` line per candidate, then tab's `:directive`
 * line. A failure prints the error directive and nothing else, so no message ever lands in the prompt.
 */
export default defineCommand({
  meta: {
    name: "complete",
    hidden: true,
    description: "Print completion candidates for the shell scripts",
    takesWords: true,
  },
  async run({ args, data }) {
    try {
      const { completeWords } = await import("./_completion.ts");
      await writeOut(await completeWords((data as RunData).chain[0]!.cmd, args._));
    } catch {
      await writeOut(":1\n");
    }
    return 0;
  },
});
