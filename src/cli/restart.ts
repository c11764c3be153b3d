import { isFermixError } from "../error.ts";
import { restartDaemon } from "../service/daemon-control.ts";
import { selfCommand } from "../service/self.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";
import { awaitStarted, daemonContext } from "./start.ts";

export default defineCommand({
  meta: {
    name: "restart",
    description: "Stop, then start the daemon (after an upgrade or a config change)",
    details:
      "A daemon that is not running is just started. It waits until the daemon answers. " +
      "A config.toml the new daemon would refuse is refused first, and the running daemon keeps running.",
  },
  async run() {
    try {
      const ctx = daemonContext();
      const { stopped, started } = await restartDaemon({ ...selfCommand(), env: ctx.env });
      const ready = await awaitStarted(ctx, started);
      const verb = stopped.stopped ? "restarted" : "was not running; started";
      await writeOut(`fermix: ${verb} (pid ${ready.pid}, version ${ready.version})\n`);
      return EXIT.ok;
    } catch (err) {
      const code = await reportError(err);
      if (isFermixError(err) && err.code === "config_invalid") {
        await writeErr("fermix: nothing was stopped; fix config.toml, then run fermix restart again\n");
      }
      return code;
    }
  },
});
