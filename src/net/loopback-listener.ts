import { type HttpHandler, type HttpServer, serveHttp } from "../runtime/http.ts";

export type ListenerState =
  | { state: "idle" }
  | { state: "listening"; port: number }
  | { state: "failed"; port: number; reason: string };

/**
 * An HTTP listener of the daemon on 127.0.0.1 only (the setup page, the webhooks). Starting it never throws: a
 * port in use becomes a failed state naming the config key to change, for doctor and status to show, and the
 * daemon goes on without it.
 */
export function createLoopbackListener(opts: {
  port: number;
  /** The config key that sets the port, for the fix (`[fermix_web] port`). */
  portKey: string;
  /** What listens, for the log lines ("web setup page"). */
  label: string;
  /** The "listening" log line's tail after the address. */
  describe?: () => string;
  handler: HttpHandler;
  log: { info(msg: string): void; error(msg: string): void };
}) {
  let server: HttpServer | undefined;
  let state: ListenerState = { state: "idle" };
  return {
    start(): ListenerState {
      if (server) return state;
      try {
        server = serveHttp({ hostname: "127.0.0.1", port: opts.port }, opts.handler);
        state = { state: "listening", port: server.port };
        opts.log.info(`${opts.label} listening on http://127.0.0.1:${server.port}${opts.describe?.() ?? ""}`);
      } catch (err) {
        const inUse = (err as { code?: string })?.code === "EADDRINUSE";
        const reason = inUse
          ? `port ${opts.port} on 127.0.0.1 is in use; set ${opts.portKey} to a free port`
          : ((err as Error)?.message ?? String(err));
        state = { state: "failed", port: opts.port, reason };
        opts.log.error(`${opts.label} not listening: ${reason}`);
      }
      return state;
    },
    async stop(): Promise<void> {
      await server?.stop(true);
      server = undefined;
      state = { state: "idle" };
    },
    state: () => state,
  };
}
