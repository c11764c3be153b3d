import { join, resolve } from "node:path";
import { grantPath } from "../config/sandbox-edit.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { defineCommand } from "./command.ts";
import { EXIT } from "./exit.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: { name: "grant", description: "Let the agent's tools use a directory" },
  subCommands: {
    path: defineCommand({
      meta: {
        name: "path",
        description: "Add directory PATH to the sandbox roots ([sandbox] allowed_roots)",
        details: "config.toml keeps its comments. A running daemon applies it from its next turn.",
        examples: ["fermix grant path ~/data"],
      },
      args: {
        path: {
          type: "positional",
          required: true,
          valueHint: "PATH",
          description: "the directory; ./ and ~/ are fine",
        },
      },
      async run({ args }) {
        const { sandbox, paths, userHome } = await localSandbox();
        const edit = await grantPath(paths.config, absolute(args.path, userHome), (p) => sandbox.isGrantable(p));
        await writeOut(edit.changed ? `granted ${edit.path}. ${LIVE_NOTE}\n` : `${edit.path} was already granted.\n`);
        return EXIT.ok;
      },
    }),
  },
});

/** `fermix grant path ./data` means this shell's ./data; `~/x` means the home's x. */
function absolute(path: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(1));
  return resolve(path);
}
