import { join, resolve } from "node:path";
import { grantPath } from "../config/sandbox-edit.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

const command = defineCliCommand({
  meta: {
    name: "grant",
    usage: "grant path PATH",
    description: "Add a directory to the sandbox roots ([sandbox] allowed_roots), keeping config.toml's comments.",
  },
  options: {},
  async run(rawArgs) {
    const [kind, path, extra] = parseStrict(rawArgs, command.options, "grant")._;
    if (kind !== "path" || !path || extra !== undefined) throw UsageError("usage: fermix grant path PATH");
    const { sandbox, paths, userHome } = await localSandbox();
    const edit = await grantPath(paths.config, absolute(path, userHome), (p) => sandbox.isGrantable(p));
    await writeOut(edit.changed ? `granted ${edit.path}. ${LIVE_NOTE}\n` : `${edit.path} was already granted.\n`);
    return EXIT.ok;
  },
});

export default command;

/** `fermix grant path ./data` means this shell's ./data; `~/x` means the home's x. */
function absolute(path: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(1));
  return resolve(path);
}
