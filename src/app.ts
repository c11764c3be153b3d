import type { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { runTurn, type ToolEnvironment, type TurnInput, type TurnResult } from "./agent/turn.ts";
import { BUILTIN_TOOLS } from "./capabilities/builtins/registry.ts";
import { WEB_TOOLS } from "./capabilities/builtins/web-tools.ts";
import { createRegistry, type Registry } from "./capabilities/registry.ts";
import type { Caller } from "./capabilities/tool.ts";
import type { Env } from "./config/env.ts";
import { loadConfig, parseConfig } from "./config/load.ts";
import { type FermixPaths, fermixPaths, resolveHome } from "./config/paths.ts";
import { grantPath } from "./config/sandbox-edit.ts";
import type { Config } from "./config/schema.ts";
import { resolveSecret } from "./config/secrets.ts";
import { createApprovals } from "./gateway/approvals.ts";
import { createLanes, type Lanes } from "./gateway/lanes.ts";
import { handleSlash } from "./gateway/slash.ts";
import { openDatabase } from "./memory/db.ts";
import { createMessageStore, type MessageStore } from "./memory/messages.ts";
import { createGuardedFetch } from "./net/guarded-fetch.ts";
import type { GuardedFetch } from "./net/types.ts";
import { createLog, type Log } from "./observability/log.ts";
import { type Route, type RouteChoice, resolveRoutes } from "./providers/routes.ts";
import { WIRES } from "./providers/wires/registry.ts";
import { createSandbox } from "./sandbox/create-sandbox.ts";
import type { Sandbox } from "./sandbox/types.ts";

export type AppDeps = {
  env: Env;
  fetch?: typeof fetch;
  /** The outbound door for tools; tests hand in one with a test resolver. */
  net?: GuardedFetch;
  now?: () => number;
  /** Daemon logs also go to stderr; an in-process `ask` keeps stderr for the user. */
  logToStderr?: boolean;
};

export type App = {
  paths: FermixPaths;
  config: Config;
  log: Log;
  lanes: Lanes;
  registry: Registry;
  routes(choice?: RouteChoice): Route[];
  /** The sandbox as config.toml says now (grants apply without a restart). */
  sandbox(): Sandbox;
  /** One turn in its conversation's lane; slash commands are answered before any model sees them. */
  ask(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  close(): void;
};

/** The composition root: the one place default dependencies are chosen and wired together. */
export async function createApp(deps: AppDeps): Promise<App> {
  const paths = fermixPaths(resolveHome(deps.env));
  const config = await loadConfig(paths.config);
  const now = deps.now ?? Date.now;
  const knownSecrets: string[] = [];
  const log = createLog({ file: paths.logFile, stderr: deps.logToStderr, secrets: () => knownSecrets });
  const lanes = createLanes();
  const secrets = { env: deps.env, secretsDir: paths.secrets, profile: config.fermix_core?.profile };
  const userHome = deps.env.HOME || homedir();

  // Opened on first use, so a turn that fails before reaching the store (no provider) writes nothing.
  let db: Database | undefined;
  let opened: MessageStore | undefined;
  const database = () => {
    if (!db) {
      mkdirSync(paths.home, { recursive: true, mode: 0o700 });
      db = openDatabase(paths.db);
    }
    return db;
  };
  const open = () => {
    opened ??= createMessageStore(database(), now);
    return opened;
  };
  const store: MessageStore = {
    history: (key) => open().history(key),
    commitTurn: (key, messages, meta) => open().commitTurn(key, messages, meta),
  };

  // The sandbox follows config.toml's [sandbox] as it is now; the rest of the config is fixed at start.
  let sandboxSource = { mtime: configMtime(paths.config), config };
  let sandbox = createSandbox({ userHome, fermixHome: paths.home, config: config.sandbox });
  const currentSandbox = () => {
    const mtime = configMtime(paths.config);
    if (mtime !== sandboxSource.mtime) {
      try {
        const fresh = parseConfig(readFileSync(paths.config, "utf8"), paths.config);
        sandbox = createSandbox({ userHome, fermixHome: paths.home, config: fresh.sandbox });
        sandboxSource = { mtime, config: fresh };
      } catch (err) {
        log
          .withTag("sandbox")
          .warn(`config.toml changed but is not valid; keeping the previous sandbox: ${(err as Error).message}`);
        sandboxSource = { ...sandboxSource, mtime };
      }
    }
    return sandbox;
  };

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
  const registry = createRegistry([...BUILTIN_TOOLS, ...WEB_TOOLS]);
  const approvals = createApprovals(database, now);
  const net = deps.net ?? createGuardedFetch();
  const toolLog = log.withTag("tools");
  const toolEnvironment = (): ToolEnvironment => ({
    sandbox: currentSandbox(),
    net,
    log: toolLog,
    config,
    approvals,
    resolveSecret: (ref, slot) => resolveSecret(ref, slot, secrets),
  });

  return {
    paths,
    config,
    log,
    lanes,
    registry,
    routes,
    sandbox: currentSandbox,
    ask: (input) =>
      lanes.run(laneOf(input), async () => {
        const reply = await handleSlash(input.text, {
          caller: input.caller,
          conversation: input.key,
          approvals,
          grant: async (path) => {
            await grantPath(paths.config, path, (p) => currentSandbox().isGrantable(p));
            currentSandbox();
          },
        });
        if (reply !== undefined) return { response: reply, provider: "fermix", model: "slash-command", turnId: "" };
        return runTurn(input, {
          store,
          routes,
          router,
          registry,
          toolEnvironment,
          now,
          agentName: config.fermix_core?.agent?.name ?? "fermix",
          timezone: config.fermix_core?.personalization?.timezone ?? "America/New_York",
          onToolExecution: (e) =>
            toolLog.info(
              `${e.name} ${e.ok ? "ok" : "error"} in ${e.durationMs} ms (${e.conversation.channel}:${e.conversation.chat})`,
            ),
        });
      }),
    close: () => db?.close(),
  };
}

function laneOf(input: TurnInput): string {
  return `${input.key.channel}:${input.key.chat}:${input.key.thread ?? ""}`;
}

function configMtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
