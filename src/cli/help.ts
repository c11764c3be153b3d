import { defineCommand } from "./command.ts";
import { type RunData, showHelp, walk } from "./dispatch.ts";

export default defineCommand({
  meta: {
    name: "help",
    description: "Show help for fermix or one of its commands",
    examples: ["fermix help plugins auth"],
    takesWords: true,
  },
  args: {
    command: { type: "positional", required: false, valueHint: "command…", description: "the command's words" },
  },
  async run({ args, data }) {
    const { chain, io } = data as RunData;
    return showHelp((await walk(chain[0]!.cmd, args._, { for: "help", lenient: false })).chain, io.out);
  },
});
