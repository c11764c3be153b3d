import type { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { runTurn, type TurnInput, type TurnResult } from "./agent/turn.ts";
import type { Env } from "./config/env.ts";
import { loadConfig } from "./config/load.ts";
import { type FermixPaths, fermixPaths, resolveHome } from "./config/paths.ts";
import type { Config } from "./config/schema.ts";
import { createLanes, type Lanes } from "./gateway/lanes.ts";
import { openDatabase } from "./memory/db.ts";
import { createMessageStore, type MessageStore } from "./memory/messages.ts";
import { createLog, type Log } from "./observability/log.ts";
import { type Route, type RouteChoice, resolveRoutes } from "./providers/routes.ts";
import { WIRES } from "./providers/wires/registry.ts";

export type AppDeps = {
  env: Env;
  fetch?: typeof fetch;
  now?: () => number;
  /** Daemon logs also go to stderr; an in-process `ask` keeps stderr for the user. */
  logToStderr?: boolean;
};

export type App = {
  paths: FermixPaths;
  config: Config;
  log: Log;
  lanes: Lanes;
  routes(choice?: RouteChoice): Route[];
  ask(input: TurnInput): Promise<TurnResult>;
  close(): void;
};

/** The composition root: the one place default dependencies are chosen and wired together. */
export async function createApp(deps: AppDeps): Promise<App> {
  const paths = fermixPaths(resolveHome(deps.env));
  const config = await loadConfig(paths.config);
  const now = deps.now ?? Date.now;
  const knownSecrets: string[] = [];
  const log = createLog({ file: paths.logFile, stderr: deps.logToStderr, secrets: () => knownSecrets });
  // Opened on first use, so a turn that fails before reaching the store (no provider) writes nothing.
  let db: Database | undefined;
  let opened: MessageStore | undefined;
  const open = () => {
    if (!opened) {
      mkdirSync(paths.home, { recursive: true, mode: 0o700 });
      db = openDatabase(paths.db);
      opened = createMessageStore(db, now);
    }
    return opened;
  };
  const store: MessageStore = {
    history: (key) => open().history(key),
    commitTurn: (key, messages, meta) => open().commitTurn(key, messages, meta),
  };
  const lanes = createLanes();
  const secrets = { env: deps.env, secretsDir: paths.secrets, profile: config.fermix_core?.profile };

  const routes = (choice: RouteChoice = {}) => {
    const resolved = resolveRoutes(config, deps.env, secrets, choice);
    for (const r of resolved)
      if (r.target.apiKey && !knownSecrets.includes(r.target.apiKey)) knownSecrets.push(r.target.apiKey);
    return resolved;
  };
  const providerLog = log.withTag("providers");
  const router = {
    wires: WIRES,
    fetch: deps.fetch ?? fetch,
    now,
    onRetry: (i: { provider: string; attempt: number; failure: { message: string } }) =>
      providerLog.warn(`retrying ${i.provider} (attempt ${i.attempt + 1}) after: ${i.failure.message}`),
    onFailover: (i: { from: string; to: string; failure: { message: string } }) =>
      providerLog.warn(`failing over from ${i.from} to ${i.to} after: ${i.failure.message}`),
  };

  return {
    paths,
    config,
    log,
    lanes,
    routes,
    ask: (input) =>
      lanes.run(laneOf(input), () =>
        runTurn(input, {
          store,
          routes,
          router,
          now,
          agentName: config.fermix_core?.agent?.name ?? "fermix",
          timezone: config.fermix_core?.personalization?.timezone ?? "America/New_York",
        }),
      ),
    close: () => db?.close(),
  };
}

function laneOf(input: TurnInput): string {
  return `${input.key.channel}:${input.key.chat}:${input.key.thread ?? ""}`;
}
