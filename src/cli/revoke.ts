import { revokePath } from "../config/sandbox-edit.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { defineCommand } from "./command.ts";
import { EXIT } from "./exit.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: { name: "revoke", description: "Take a directory back from the agent's tools" },
  subCommands: {
    path: defineCommand({
      meta: {
        name: "path",
        description: "Remove directory PATH from the sandbox roots",
        details: "config.toml keeps its comments. A running daemon applies it from its next turn.",
      },
      args: { path: { type: "positional", required: true, valueHint: "PATH", description: "a granted directory" } },
      async run({ args }) {
        const { paths, userHome } = await localSandbox();
        const edit = await revokePath(paths.config, args.path, { userHome });
        await writeOut(`revoked ${edit.path}. ${LIVE_NOTE}\n`);
        return EXIT.ok;
      },
    }),
  },
});
