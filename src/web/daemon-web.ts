import type { App } from "../app-contract.ts";
import type { Env } from "../config/env.ts";
import { DEFAULT_WEB_PORT } from "../config/sections/web.ts";
import { createCardsDeps } from "./cards-deps.ts";
import { createChannelsWeb } from "./channel-deps.ts";
import { createDaemonRestart } from "./daemon-restart.ts";
import type { RunSummary, WebDeps } from "./page.ts";
import { createPluginsWeb } from "./plugin-deps.ts";
import { createProviderSignIn } from "./provider-sign-in.ts";
import { createWebServer } from "./server.ts";
import { createSetupActions } from "./setup-actions.ts";
import type { WebServer } from "./web-server-contract.ts";

/**
 * The setup page as the daemon runs it: the pages read the daemon's own status over its socket (what `fermix status`
 * shows), doctor's rows as `fermix doctor` makes them, and the job store. Undefined when [fermix_web] enabled = false.
 */
export async function createDaemonWeb(app: App, env: Env): Promise<WebServer | undefined> {
  const web = app.config.fermix_web;
  if (web?.enabled === false) return undefined;
  const deps: WebDeps = {
    setup: createSetupActions({ env, paths: app.paths }),
    plugins: createPluginsWeb({ env, webPort: web?.port ?? DEFAULT_WEB_PORT }),
    channels: createChannelsWeb({ env, paths: app.paths, states: () => app.channels.status() }),
    ...createCardsDeps(app, env),
    signIn: createProviderSignIn({ env, paths: app.paths, log: app.log.withTag("web") }),
    restart: createDaemonRestart({ env, log: app.log.withTag("web") }),
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
  return createWebServer({
    port: web?.port ?? DEFAULT_WEB_PORT,
    paths: app.paths.web,
    deps,
    now: Date.now,
    log: app.log.withTag("web"),
    // Loaded only when [mcp.inbound] is on: an idle daemon carries no MCP server code.
    mcp: app.config.mcp?.inbound?.enabled
      ? (await import("../mcp/inbound/http-handler.ts")).createInboundHttp(app)
      : undefined,
  });
}
