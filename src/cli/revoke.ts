import { revokePath } from "../config/sandbox-edit.ts";
import { LIVE_NOTE, localSandbox } from "./_sandbox.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

const command = defineCliCommand({
  meta: {
    name: "revoke",
    usage: "revoke path PATH",
    description: "Remove a directory from the sandbox roots, keeping config.toml's comments.",
  },
  options: {},
  async run(rawArgs) {
    const [kind, path, extra] = parseStrict(rawArgs, command.options, "revoke")._;
    if (kind !== "path" || !path || extra !== undefined) throw UsageError("usage: fermix revoke path PATH");
    const { paths, userHome } = await localSandbox();
    const edit = await revokePath(paths.config, path, { userHome });
    await writeOut(`revoked ${edit.path}. ${LIVE_NOTE}\n`);
    return EXIT.ok;
  },
});

export default command;
