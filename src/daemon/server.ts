import { chmodSync, mkdirSync } from "node:fs";
import type { App } from "../app-contract.ts";
import { removeQuietly } from "../fs/lock-files.ts";
import { type HttpServer, serveHttp, unixFetch } from "../runtime/http.ts";
import type { WebState } from "../web/web-server-contract.ts";
import type { DaemonState } from "./daemon-state.ts";
import { claimInstance } from "./instance.ts";
import { handle } from "./routes.ts";

const FORCE_STOP_AFTER_MS = 3000;

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
export async function startDaemon(app: App, opts: { web?: () => WebState } = {}): Promise<RunningDaemon> {
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
  };

  // The runtime creates the socket with the process umask; set it first so there is no window where it is wider.
  const previousUmask = process.umask(0o077);
  let server: HttpServer;
  try {
    server = serveHttp({ unix: paths.socket }, (req) => handle(req, state));
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
      for (const turn of state.turns) turn.abort();
      // Graceful first, so the reply to a shutdown request still reaches its client; forced if a
      // connection lingers.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        server.stop(false),
        new Promise<void>((resolve) => {
          timer = setTimeout(() => resolve(server.stop(true)), FORCE_STOP_AFTER_MS);
        }),
      ]);
      clearTimeout(timer);
      // Plugin servers and memory.db go before the lock is released (Bun's server has already unlinked the socket; Deno's has not).
      await app.close();
      removeQuietly(paths.socket);
      release();
      app.log.withTag("daemon").info("stopped");
      resolveStopped();
    })();
    return stopping;
  }

  return { socket: paths.socket, stopped, stop };
}

async function probeSocket(socket: string): Promise<boolean> {
  try {
    const res = await unixFetch(socket)("http://fermix/v1/health", { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}
