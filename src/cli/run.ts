import { isatty } from "node:tty";
import { processEnv } from "../config/env.ts";
import { restartWithAllocatorSettings } from "../daemon/allocator-restart.ts";
import type { Log } from "../observability/log.ts";
import { writeStderr } from "../runtime/stdio.ts";
import { VERSION } from "../version.ts";
import { defineCommand } from "./command.ts";
import { EXIT, reportError } from "./exit.ts";

/**
 * The signal-to-exit bound the owner and the service manager can count on (issue 26: within 10 s). The daemon's
 * own stop (daemon/server.ts) gives its parts STOP_DEADLINE_MS and then returns; this backstop ends the process even
 * when that stop never began (a signal during start-up, before the socket serves) or never returned.
 */
const EXIT_BACKSTOP_MS = 9500;

export default defineCommand({
  meta: {
    name: "run",
    description: "Run the daemon in the foreground (what the service starts)",
    details: "It runs until SIGTERM, SIGINT or `fermix stop`.",
  },
  async run() {
    // Before anything is opened: the allocator settings of a long-running process (issue 31;
    // daemon/allocator-settings.ts).
    restartWithAllocatorSettings();
    // From the very start: a signal that arrives while the daemon is still starting stops it once it has
    // started, rather than killing the process with plugin servers half-launched. A hangup (the terminal of a
    // foreground daemon closing) stops it like SIGTERM, servers and all.
    let running: { stop(): Promise<void> } | undefined;
    let stopAsked = false;
    let log: Log | undefined;
    // A stop the owner or the service manager asked for (a signal, `fermix stop`) exits 0, even when the deadline
    // cut it short: the stop did what it was asked, and a non-zero code would make systemd mark the unit failed
    // (and, with Restart=on-failure, start again a daemon someone meant to stop). Only a burst of faults exits
    // non-zero, precisely so that the service manager restarts it.
    let exitCode: number = EXIT.ok;
    const requestStop = (code: number = EXIT.ok) => {
      if (code !== EXIT.ok) exitCode = code;
      if (!stopAsked) {
        stopAsked = true;
        setTimeout(() => {
          log?.warn(`still stopping after ${EXIT_BACKSTOP_MS / 1000} s; exiting now`);
          process.exit(exitCode);
        }, EXIT_BACKSTOP_MS);
      }
      void running?.stop();
    };
    const onSignal = () => {
      // A second signal while stopping is someone who will not wait for the bound: exit at once.
      if (stopAsked) {
        log?.warn("a second stop signal: exiting now");
        process.exit(exitCode);
      }
      requestStop();
    };
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, onSignal);
    // Unhandled rejections and uncaught exceptions from here on are the fault policy's: the daemon keeps serving.
    const { createFaultPolicy } = await import("../daemon/fault-policy.ts");
    const faults = createFaultPolicy({
      now: Date.now,
      early: (line) => void writeStderr(line),
      onBurst: () => requestStop(EXIT.error),
    });
    faults.install(process);
    try {
      const [{ createApp }, { startDaemon }] = await Promise.all([import("../app.ts"), import("../daemon/server.ts")]);
      const env = processEnv();
      // Lines go to stderr only where someone reads them: a terminal, or systemd's journal (which rotates).
      // A detached start or launchd sends stderr to a file that nothing rotates; fermix.log already has them.
      const { stderrIsJournal } = await import("../observability/journal.ts");
      const logToStderr = isatty(2) || stderrIsJournal(env);
      const app = await createApp({ env, logToStderr, backgroundReview: true, role: "daemon" });
      log = app.log.withTag("daemon");
      faults.attach({ log, traces: app.traces, parts: app.subsystems });
      app.prepareHome();
      // Test only, and nothing unless FERMIX_TEST_FAULT is set: faults for the policy above, raised once serving.
      const raiseTestFaults = (await import("../daemon/test-fault.ts")).testFaults(env, app.subsystems);
      // An upgrade cut short by a crash is finished (this is the new version, and it started) or undone here.
      const { recoverInterruptedUpgrade } = await import("../upgrade/journal.ts");
      const recovered = recoverInterruptedUpgrade(app.paths.upgrade, { runningVersion: VERSION, asDaemon: true });
      if (recovered.action !== "none") app.log.withTag("upgrade").warn(recovered.message);
      // The catalog in the binary is verified wherever it is read, so a tampered one is refused before any use. With
      // plugins enabled it is also checked now, in the background, to say so in the log at start; without, an idle
      // daemon never loads it (sigstore and the catalog are ~4 MB of its resident memory).
      const checkCatalog = () =>
        import("../plugins/catalog/load-catalog.ts")
          .then(({ loadCatalog }) => loadCatalog())
          .catch((err) => app.log.withTag("plugins").error(`${(err as Error).message}; plugins are unavailable`));
      // Plugin servers and signal-cli a SIGKILLed daemon (or one-shot ask) left running go before ours start; only
      // groups whose leader still has the recorded identity, so a reused pid is never hit. A live fermix's record is
      // left alone.
      const { reapOrphanedGroups, recordChildGroups } = await import("../plugins/mcp-rail/child-groups.ts");
      await reapOrphanedGroups({ dir: app.paths.children, log: app.log.withTag("plugins") });
      // From here on every child group this daemon starts (plugin servers, signal-cli) is recorded for the next one.
      recordChildGroups({
        dir: app.paths.children,
        onError: (err) => app.log.warn(`could not record a child process group: ${err.message}`),
      });
      const daemon = await startDaemon(app, { web: () => app.web(), faults: faults.count });
      if (stopAsked) void daemon.stop();
      running = daemon;
      if (app.plugins.enabled()) void checkCatalog();
      // The daemon's parts (src/subsystems.ts) in list order: the setup page, plugin and MCP servers, jobs' clock,
      // chat channels… Nothing that can hang is waited for: a part that fails is a state (status, doctor), not a stop.
      // A stop asked for during start-up is already under way: nothing more is started for it to miss.
      if (!stopAsked) await app.start();
      // The one line a supervisor or a script waits for, whether or not log lines go to stderr.
      if (!logToStderr) await writeStderr(`fermix: listening on ${app.paths.socket} (pid ${process.pid})\n`);
      raiseTestFaults?.();
      await daemon.stopped;
      return exitCode;
    } catch (err) {
      return reportError(err);
    }
  },
});
