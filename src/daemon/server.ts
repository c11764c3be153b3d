import { chmodSync, mkdirSync } from "node:fs";
import type { App } from "../app-contract.ts";
import { removeQuietly } from "../fs/lock-files.ts";
import { MAX_ASK_BODY_BYTES } from "../protocol/ask-parts.ts";
import { type HttpServer, serveHttp, unixFetch } from "../runtime/http.ts";
import type { WebState } from "../web/web-server-contract.ts";
import type { DaemonState } from "./daemon-state.ts";
import { claimInstance } from "./instance.ts";
import { handle } from "./routes.ts";

/** Connections still open this long into a stop are cut (the reply to `fermix stop` has gone out by then). */
const FORCE_STOP_AFTER_MS = 3000;
/**
 * A stop's bound, from its request until `stopped` resolves (issue 26: SIGTERM or `fermix stop` ends the daemon
 * within 10 s whatever a channel, a plugin or a turn is doing). The rest of the 10 s is the process's exit and the
 * run verb's own backstop (cli/run.ts). What a part had not stopped by then is left: the process exit takes the
 * child process groups with it (mcp-rail/process-groups.ts), and the next start reaps any that survived.
 */
export const STOP_DEADLINE_MS = 8000;

export type RunningDaemon = {
  socket: string;
  /** Resolves once the daemon has stopped and cleaned up. */
  stopped: Promise<void>;
  stop(): Promise<void>;
};

/**
 * Serves the app on `$FERMIX_HOME/daemon.sock`: HTTP/1.1 over a unix socket that only its owner can
 * open (socket 0600 in a 0700 directory).
 */
export async function startDaemon(
  app: App,
  opts: {
    web?: () => WebState;
    /** The fault policy's count, for `fermix status` (cli/run.ts passes it). */
    faults?: () => number;
    /** Tests shorten the bound; the daemon keeps STOP_DEADLINE_MS. */
    stopDeadlineMs?: number;
  } = {},
): Promise<RunningDaemon> {
  const { paths } = app;
  mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  chmodSync(paths.home, 0o700);
  const release = await claimInstance(paths, probeSocket);

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => {
    resolveStopped = r;
  });
  let stopping: Promise<void> | undefined;
  const state: DaemonState = {
    app,
    startedAt: Date.now(),
    turns: new Set(),
    requestShutdown: () => void stop(),
    ...(opts.web ? { web: opts.web } : {}),
    ...(opts.faults ? { faults: opts.faults } : {}),
  };

  // The runtime creates the socket with the process umask; set it first so there is no window where it is wider.
  const previousUmask = process.umask(0o077);
  let server: HttpServer;
  try {
    // An ask's attachments travel in its body (protocol/ask-parts.ts sizes the cap from their limits).
    server = serveHttp({ unix: paths.socket }, (req) => handle(req, state), { maxBodyBytes: MAX_ASK_BODY_BYTES });
  } catch (err) {
    release();
    throw err;
  } finally {
    process.umask(previousUmask);
  }
  chmodSync(paths.socket, 0o600);
  app.log.withTag("daemon").info(`listening on ${paths.socket} (pid ${process.pid})`);

  function stop(): Promise<void> {
    stopping ??= (async () => {
      const log = app.log.withTag("daemon");
      const deadline = Date.now() + (opts.stopDeadlineMs ?? STOP_DEADLINE_MS);
      for (const turn of state.turns) turn.abort();
      // The listeners first, so nothing new arrives while the rest stops: the socket stops accepting at once
      // (graceful, so the reply to a shutdown request still reaches its client; cut if a connection lingers); the
      // setup page is the first part app.close() stops (it is last in src/subsystems.ts), the webhook port goes
      // with the channels.
      const drained = server.stop(false);
      if (!(await settlesWithin(drained, Math.min(FORCE_STOP_AFTER_MS, deadline - Date.now())))) {
        await settlesWithin(server.stop(true), Math.max(0, deadline - Date.now()));
      }
      // Then the parts in reverse list order, plugin servers and memory.db, for what is left of the bound, before the
      // lock is released. A part that does not stop by then (a hung peer, a library that never settles) does not hold
      // the process.
      const closing = app.close().catch((err: unknown) => log.error(`stopping failed: ${(err as Error).message}`));
      if (!(await settlesWithin(closing, Math.max(0, deadline - Date.now())))) {
        log.warn(
          `the daemon's parts did not stop within ${Math.round((opts.stopDeadlineMs ?? STOP_DEADLINE_MS) / 1000)} s; exiting anyway (the next start reaps what they left running)`,
        );
      }
      // Bun's server has already unlinked the socket; Deno's has not.
      removeQuietly(paths.socket);
      release();
      log.info("stopped");
      resolveStopped();
    })();
    return stopping;
  }

  return { socket: paths.socket, stopped, stop };
}

/** Whether `promise` settled within `ms`; it is left running either way. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function probeSocket(socket: string): Promise<boolean> {
  try {
    const res = await unixFetch(socket)("http://fermix/v1/health", { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}
