import type { App } from "../app-contract.ts";
import type { Env } from "../config/env.ts";
import type { Config } from "../config/schema.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { defineSubsystem } from "../subsystem.ts";
import type { WebServer } from "./web-server-contract.ts";

/** `db`: memory.db, where the Usage page reads the usage ledger. */
export type WebDeps = { config: Config; env: Env; app(): App; db: () => SqlDatabase };

/**
 * The setup page's listener, beside the socket, in the daemon only. A port in use is a state (doctor, status),
 * never a failed start. The listener loads with it, the pages on the first request (daemon-web.ts); the boot waits
 * for the listener, so `status` never sees it half made.
 */
export const webSubsystem = defineSubsystem({
  name: "web",
  wanted: (deps: WebDeps) => deps.config.fermix_web?.enabled !== false,
  load: async (deps: WebDeps): Promise<WebServer | null> =>
    (await (await import("./daemon-web.ts")).createDaemonWeb(deps.app(), deps.env, deps.db)) ?? null,
  start: async (web) => void web?.start(),
  awaitStart: true,
  stop: async (web) => web?.stop(),
  status: (web) => {
    const state = web?.state() ?? { state: "disabled" };
    if (state.state === "failed") return { state: "degraded", detail: state.reason };
    return { state: state.state === "listening" ? "running" : "idle" };
  },
});
