import { restartDaemon } from "../service/daemon-control.ts";
import { selfCommand } from "../service/self.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, reportError, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";
import { awaitStarted, daemonContext } from "./start.ts";

const command = defineCliCommand({
  meta: {
    name: "restart",
    description:
      "Stop the daemon if it runs, start it again and wait until it answers (after an upgrade or a config change).",
  },
  options: {},
  async run(rawArgs) {
    try {
      const args = parseStrict(rawArgs, command.options, "restart");
      if (args._.length) throw UsageError(`restart: unexpected argument "${args._[0]}"`);
      const ctx = daemonContext();
      const { stopped, started } = await restartDaemon({ ...selfCommand(), env: ctx.env });
      const ready = await awaitStarted(ctx, started);
      const verb = stopped.stopped ? "restarted" : "was not running; started";
      await writeOut(`fermix: ${verb} (pid ${ready.pid}, version ${ready.version})\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});

export default command;
