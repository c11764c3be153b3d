import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { daemonHealth, outputTail, type StartResult, startDaemon, waitForDaemon } from "../service/daemon-control.ts";
import { selfCommand } from "../service/self.ts";
import { daemonOutputPath } from "../service/target.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: {
    name: "start",
    description: "Start the daemon (through the service when one is installed)",
    details: "Without a service it starts in the background. Either way it waits until the daemon answers.",
  },
  async run() {
    try {
      const ctx = daemonContext();
      const running = await daemonHealth(ctx.socket);
      if (running.running) {
        await writeOut(`fermix: already running (pid ${running.pid}, version ${running.version})\n`);
        return EXIT.ok;
      }
      const started = await startDaemon({ ...selfCommand(), env: ctx.env });
      const ready = await awaitStarted(ctx, started);
      await writeOut(`fermix: started (pid ${ready.pid}, version ${ready.version})\n`);
      return EXIT.ok;
    } catch (err) {
      return reportError(err);
    }
  },
});

/** How long `fermix start|restart` wait for the started daemon to answer. */
export const START_WAIT_MS = 10_000;

/** The environment and socket `fermix start|stop|restart` act on. */
export function daemonContext() {
  const env = processEnv() as Record<string, string | undefined>;
  const home = resolveHome(env);
  return { env, home, socket: fermixPaths(home).socket };
}

/** Waits for a daemon just started; a failure names what was seen and shows the daemon's last output. */
export async function awaitStarted(
  ctx: ReturnType<typeof daemonContext>,
  started: StartResult,
): Promise<{ version: string; pid: number }> {
  const ready = await waitForDaemon({ socket: ctx.socket, timeoutMs: START_WAIT_MS, exited: started.exited });
  if (ready.ok) return ready;
  const seen = ready.reason.startsWith("exited")
    ? `the daemon ${ready.reason}`
    : `the daemon is ${ready.reason} after ${START_WAIT_MS / 1000} s`;
  const logs = fermixPaths(ctx.home).logFile;
  if (started.via === "service") {
    throw new FermixError(
      "start_failed",
      `the service was started but ${seen}; see ${logs} and the service manager's log`,
    );
  }
  const tail = started.output ? outputTail(started.output) : [];
  let message = `${seen}; see ${daemonOutputPath(ctx.home)} and ${logs}`;
  if (tail.length) message += `\n${tail.map((l) => `  ${l}`).join("\n")}`;
  throw new FermixError("start_failed", message);
}
