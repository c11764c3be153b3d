import type { App } from "../app-contract.ts";
import type { Env } from "../config/env.ts";
import { DEFAULT_WEB_PORT } from "../config/sections/web.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type { UsageLedger } from "../usage/ledger-contract.ts";
import { createCardsDeps } from "./cards-deps.ts";
import { createChannelsWeb } from "./channel-deps.ts";
import { createDaemonRestart } from "./daemon-restart.ts";
import type { RunSummary, WebDeps } from "./page.ts";
import { createPluginsWeb } from "./plugin-deps.ts";
import { createProviderSignIn } from "./provider-sign-in.ts";
import { createWebSite, type WebSiteOptions } from "./server.ts";
import { createSetupActions } from "./setup-actions.ts";
import { createUsageWeb } from "./usage-deps.ts";
import type { WebSite } from "./web-server-contract.ts";

/**
 * The setup site as the daemon serves it, built on the listener's first request: the pages read the daemon's own
 * status over its socket (what `fermix status` shows), doctor's rows as `fermix doctor` makes them, the job store,
 * and the usage ledger in memory.db.
 */
export function createDaemonSite(app: App, env: Env, db: () => SqlDatabase, mcp: WebSiteOptions["mcp"]): WebSite {
  const web = app.config.fermix_web;
  const setup = createSetupActions({ env, paths: app.paths });
  let ledger: Promise<UsageLedger> | undefined;
  const deps: WebDeps = {
    setup,
    plugins: createPluginsWeb({ env, webPort: web?.port ?? DEFAULT_WEB_PORT }),
    channels: createChannelsWeb({ env, paths: app.paths, states: () => app.channels.status() }),
    ...createCardsDeps(app, env),
    signIn: createProviderSignIn({ env, paths: app.paths, log: app.log.withTag("web") }),
    restart: createDaemonRestart({ env, log: app.log.withTag("web") }),
    usage: createUsageWeb({
      // Loaded on the first page that reads it, once: the ledger's code stays out of a daemon nobody browses.
      ledger: () => (ledger ??= import("../usage/ledger.ts").then((m) => m.createUsageLedger(db()))),
      // config.toml as it is now (a raised budget shows at once); one that no longer parses keeps the boot's.
      config: () => setup.config().catch(() => app.config),
      now: Date.now,
    }),
    status: async () => {
      const { createDaemonClient } = await import("../protocol/client.ts");
      return createDaemonClient(app.paths.socket).status();
    },
    doctor: async () => {
      const [{ runDoctor }, { defaultDoctorDeps }] = await Promise.all([
        import("../doctor/run-doctor.ts"),
        import("../doctor/default-deps.ts"),
      ]);
      return runDoctor(defaultDoctorDeps(env, { full: false }));
    },
    recentRuns: async (limit) => {
      const { store } = await app.jobs();
      const runs: RunSummary[] = store.list().flatMap((job) =>
        store.runs(job.id, { limit }).map((run) => ({
          job: job.name,
          runId: run.id,
          status: run.status,
          at: run.claimedAt,
          error: run.error,
        })),
      );
      return runs.sort((a, b) => b.at - a.at).slice(0, limit);
    },
  };
  return createWebSite({ paths: app.paths.web, deps, now: Date.now, log: app.log.withTag("web"), mcp });
}
