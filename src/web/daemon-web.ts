import type { App } from "../app-contract.ts";
import type { Env } from "../config/env.ts";
import { DEFAULT_WEB_PORT } from "../config/sections/web.ts";
import { createLoopbackListener } from "../net/loopback-listener.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { WebServer, WebSite, WebState } from "./web-server-contract.ts";

/**
 * The setup page's listener on 127.0.0.1 only (never 0.0.0.0), in the daemon. Only the listener is made at boot: the
 * pages, their deps and the session store load on the first request (src/web/daemon-site.ts), so a daemon nobody
 * browses carries none of their code. A port in use is a state for doctor, never a failed daemon start. Undefined
 * when [fermix_web] enabled = false.
 */
export async function createDaemonWeb(app: App, env: Env, db: () => SqlDatabase): Promise<WebServer | undefined> {
  const web = app.config.fermix_web;
  if (web?.enabled === false) return undefined;
  const port = web?.port ?? DEFAULT_WEB_PORT;
  const log = app.log.withTag("web");
  // Made at boot when [mcp.inbound] is on, so that its readiness (or its unreadable token) is logged then; an idle
  // daemon without it carries no MCP server code.
  const mcp = app.config.mcp?.inbound?.enabled
    ? (await import("../mcp/inbound/http-handler.ts")).createInboundHttp(app)
    : undefined;
  let site: Promise<WebSite> | undefined;
  let loaded: WebSite | undefined;
  const loadSite = () =>
    (site ??= import("./daemon-site.ts").then((m) => {
      loaded = m.createDaemonSite(app, env, db, mcp);
      return loaded;
    }));
  const listener = createLoopbackListener({
    port,
    portKey: "[fermix_web] port",
    label: "web setup page",
    describe: () => " (loopback only)",
    handler: async (request) => {
      const current = listener.state();
      return (await loadSite()).handle(request, current.state === "listening" ? current.port : port);
    },
    log,
  });
  return {
    start: (): WebState => listener.start(),
    stop: () => listener.stop(),
    state: (): WebState => listener.state(),
    sessionCount: () => loaded?.sessionCount() ?? 0,
  };
}
