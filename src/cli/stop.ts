import { existsSync } from "node:fs";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { connectDaemon } from "./daemon-client.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

const STOP_WAIT_MS = 10_000;

const command = defineCliCommand({
  meta: { name: "stop", description: "Stop the running daemon and wait until it has gone." },
  options: {},
  async run(rawArgs) {
    parseStrict(rawArgs, command.options, "stop"); // takes no options: anything else is a usage error
    try {
      const { client, socket } = connectDaemon();
      const { pid } = await client.health();
      await client.shutdown();
      // The daemon removes its socket as the last step of a clean stop.
      const deadline = Date.now() + STOP_WAIT_MS;
      while (existsSync(socket) && Date.now() < deadline) await Bun.sleep(20);
      if (existsSync(socket)) {
        await writeErr(`fermix: the daemon (pid ${pid}) has not stopped after ${STOP_WAIT_MS / 1000} s\n`);
        return EXIT.error;
      }
      await writeOut(`fermix: stopped (pid ${pid})\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});

export default command;
