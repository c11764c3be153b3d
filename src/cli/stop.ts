import { FermixError } from "../error.ts";
import { NOT_RUNNING } from "../protocol/client.ts";
import { stopDaemon } from "../service/daemon-control.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";
import { daemonContext } from "./start.ts";

const STOP_WAIT_MS = 10_000;

export default defineCommand({
  meta: {
    name: "stop",
    description: "Stop the running daemon",
    details: "Through the service when one is installed; it waits until the daemon has gone.",
  },
  async run() {
    try {
      // stopDaemon waits for the daemon's process to end: its plugin servers are gone by then.
      const result = await stopDaemon({ env: daemonContext().env, timeoutMs: STOP_WAIT_MS });
      if (!result.stopped) throw new FermixError(NOT_RUNNING, "not running");
      await writeOut(`fermix: stopped (pid ${result.pid})\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});
