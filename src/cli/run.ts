import { processEnv } from "../config/env.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand, renderHelp } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";

const command = defineCliCommand({
  meta: { name: "run", description: "Run the daemon in the foreground until SIGTERM, SIGINT or `fermix stop`." },
  options: { help: { type: "boolean", alias: "h", description: "show this help" } },
  async run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "run");
    if (args.help) {
      await writeOut(renderHelp(command));
      return EXIT.ok;
    }
    try {
      const [{ createApp }, { startDaemon }] = await Promise.all([import("../app.ts"), import("../daemon/server.ts")]);
      const app = await createApp({ env: processEnv(), logToStderr: true });
      const daemon = await startDaemon(app);
      const onSignal = () => void daemon.stop();
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
      await daemon.stopped;
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});

export default command;
