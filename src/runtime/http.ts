import { bun, deno, onBun } from "./host.ts";

export type HttpHandler = (request: Request) => Response | Promise<Response>;

/** Where to listen: a unix socket path, or a TCP host and port (0 = any free port). */
export type Listen = { unix: string } | { hostname: string; port: number };

export type HttpServer = {
  /** The TCP port listened on (0 for a unix socket). */
  port: number;
  /**
   * Stops listening. Graceful waits for requests in flight; forced drops them (Deno has no forced stop:
   * it resolves at once and lets the in-flight requests finish on their own).
   */
  stop(force?: boolean): Promise<void>;
};

/**
 * Bun.serve on Bun, Deno.serve on Deno: one HTTP/1.1 server with a fetch-style handler. `maxBodyBytes` caps a request
 * body (Bun answers a larger one with 413 before the handler runs; Deno has no such cap).
 */
export function serveHttp(listen: Listen, handler: HttpHandler, opts: { maxBodyBytes?: number } = {}): HttpServer {
  if (onBun) {
    const limit = opts.maxBodyBytes ? { maxRequestBodySize: opts.maxBodyBytes } : {};
    const server = bun().serve({ ...listen, ...limit, fetch: handler } as Parameters<typeof Bun.serve>[0]);
    return { port: server.port ?? 0, stop: (force) => server.stop(force) };
  }
  const options = "unix" in listen ? { path: listen.unix } : { hostname: listen.hostname, port: listen.port };
  // onListen given so that Deno does not print "Listening on …" to stdout.
  const server = deno().serve({ ...options, onListen() {} }, handler);
  let shutdown: Promise<void> | undefined;
  return {
    port: server.addr.port ?? 0,
    stop: async (force) => {
      shutdown ??= server.shutdown();
      if (!force) await shutdown;
    },
  };
}

/**
 * A fetch that speaks HTTP over a unix socket: the URL's host is ignored. Bun takes a `unix` option on
 * fetch; Deno a client with a unix "proxy".
 */
export function unixFetch(socket: string): (url: string, init?: RequestInit) => Promise<Response> {
  if (onBun) return (url, init) => fetch(url, { ...init, unix: socket } as RequestInit);
  let client: ReturnType<ReturnType<typeof deno>["createHttpClient"]> | undefined;
  return (url, init) => {
    client ??= deno().createHttpClient({ proxy: { transport: "unix", path: socket } });
    return fetch(url, { ...init, client } as RequestInit);
  };
}
