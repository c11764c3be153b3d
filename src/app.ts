import { createCompactor, observeCompaction } from "./agent/compaction-observer.ts";
import { createDelegation } from "./agent/delegation.ts";
import { traceFailovers } from "./agent/failover-traces.ts";
import { collectWhenIdle } from "./agent/idle-collection.ts";
import { reviewAfterTurns } from "./agent/memory-review-subsystem.ts";
import { readPromptFiles, reconcileAgentName, seedPromptFiles } from "./agent/prompt-files.ts";
import { createPromptFilesReader } from "./agent/prompt-files-reader.ts";
import type { ToolEnvironment } from "./agent/turn.ts";
import type { TurnEvents } from "./agent/turn-events.ts";
import { logTurns } from "./agent/turn-log.ts";
import { commandProfilesSource, createTurnRunner } from "./agent/turn-runner.ts";
import { loadAppConfig } from "./app-config.ts";
import type { App } from "./app-contract.ts";
import { lazySlash } from "./app-slash.ts";
import { BUILTIN_TOOLS } from "./capabilities/builtins/registry.ts";
import { WEB_TOOLS } from "./capabilities/builtins/web-tools.ts";
import { createRegistry } from "./capabilities/registry.ts";
import type { Env } from "./config/env.ts";
import { createLiveConfig } from "./config/live-config.ts";
import { fermixPaths, resolveHome } from "./config/paths.ts";
import { resolveSecret } from "./config/secrets.ts";
import type { SecretRef } from "./config/sections/secret-ref.ts";
import { FermixError } from "./error.ts";
import { createApprovals } from "./gateway/approvals.ts";
import { createLanes } from "./gateway/lanes.ts";
import { createBackgroundTasks } from "./gateway/slash/background-tasks.ts";
import { lazy, once } from "./lazy.ts";
import { lazyDatabase } from "./memory/lazy-database.ts";
import { createMemoryStore } from "./memory/memories.ts";
import { createMessageStore } from "./memory/messages.ts";
import { createGuardedFetch } from "./net/guarded-fetch.ts";
import type { GuardedFetch } from "./net/types.ts";
import { createLog } from "./observability/log.ts";
import { createObservers } from "./observability/observers.ts";
import { captureContent, createTraces } from "./observability/traces.ts";
import { pluginsFacade } from "./plugins/plugins-facade.ts";
import { createAppRouter } from "./providers/app-router.ts";
import { type RouteChoice, resolveRoutes } from "./providers/routes.ts";
import { nodeModule } from "./runtime/host.ts";
import { createLiveSandbox } from "./sandbox/live-sandbox.ts";
import { createSkillCatalog } from "./skills/catalog.ts";
import { type PluginSkills, pluginFolders } from "./skills/sources.ts";
import { startSubsystems, stopSubsystems } from "./subsystem.ts";
import { bindSubsystems, turnSources } from "./subsystems.ts";
import { appBudget } from "./usage/app-budget.ts";
import { createUsageDeps, meterAppRouter } from "./usage/app-usage.ts";

export type AppDeps = {
  env: Env;
  fetch?: typeof fetch;
  /** The outbound door for tools; tests hand in one with a test resolver. */
  net?: GuardedFetch;
  now?: () => number;
  /** Daemon logs also go to stderr; an in-process `ask` keeps stderr for the user. */
  logToStderr?: boolean;
  /** Run the ~24 h memory review after turns (the daemon does; a one-shot CLI does not). */
  backgroundReview?: boolean;
  /** "daemon" runs MCP servers in the background from boot; "oneshot" (the default) only when a tool needs one. */
  role?: "daemon" | "oneshot";
};

/** The composition root: the core services, the daemon's parts (src/subsystems.ts) and the turn runner. */
export async function createApp(deps: AppDeps): Promise<App> {
  const { env } = deps;
  const paths = fermixPaths(resolveHome(env));
  const config = await loadAppConfig(paths.config);
  const now = deps.now ?? Date.now;
  const role = deps.role ?? "oneshot";
  const secrets = { env, secretsDir: paths.secrets, profile: config.fermix_core?.profile };
  // Every secret resolved is registered once, process-wide (config/secret-registry.ts), and redacted wherever
  // text leaves the process: the log, the traces, errors.
  const resolveSecretRef = (ref: SecretRef, slot: string) => resolveSecret(ref, slot, secrets);
  // stderr's style (colour, plain, journald) is decided from env and fd 2 once consola loads.
  const log = createLog({ file: paths.logFile, stderr: deps.logToStderr && { env } });
  const liveConfig = createLiveConfig(paths.config, config, log.withTag("config"));
  // memory.db: checkpointed on the daemon's timer, off a commit's path; a one-shot exit leaves the log to them.
  const database = lazyDatabase(paths.db, {
    role,
    onError: (err) => log.withTag("memory").warn(`memory.db checkpoint failed: ${err.message}`),
  });
  const db = () => database.get();
  const store = lazy(() => createMessageStore(db(), now));
  const memory = lazy(() => createMemoryStore(db(), now));
  // node:os only where HOME is unset: its import alone costs the one-shot ask 20–40 page faults (issue 31).
  const userHome = env.HOME || nodeModule<typeof import("node:os")>("node:os").homedir();
  const sandbox = createLiveSandbox({ config: liveConfig, userHome, fermixHome: paths.home });
  const events = createObservers<TurnEvents>((kind, e) => log.warn(`${String(kind)} observer failed: ${e.message}`));
  const routes = (choice: RouteChoice = {}) => resolveRoutes(config, env, secrets, choice);
  const tagged = { providers: log.withTag("providers"), tools: log.withTag("tools") };
  const router = meterAppRouter(
    createAppRouter({
      ...{ fetch: deps.fetch ?? fetch, now, log: tagged.providers, afterFirstRequest: database.warmWhileWaiting },
      onFailover: (i) => events.emit("failover", i),
    }),
    { db, config: liveConfig, now, log: log.withTag("usage") },
  );
  const registry = createRegistry([...BUILTIN_TOOLS, ...WEB_TOOLS]);
  const approvals = createApprovals(db, now);
  const net = deps.net ?? createGuardedFetch();
  const agentName = config.fermix_core?.agent?.name?.trim() || "fermix";
  // The skills of enabled plugins, as the latest turn's parts offered them (read in place, at guest trust).
  let pluginSkills: readonly PluginSkills[] = [];
  const skills = createSkillCatalog({ homeSkillsDir: paths.skills, pluginSkills: () => pluginFolders(pluginSkills) });
  const lanes = createLanes();
  // This process's /background work, across chats; /stop ends it with the turns.
  const background = createBackgroundTasks({ now });
  const stopBackground = () => background.stopAll(new FermixError("stopped", "stopped by the owner with /stop"));
  const parts = bindSubsystems({
    ...{ env, role, now, fetch: deps.fetch ?? fetch, paths, config, liveConfig, log, db, secrets, net },
    ...{ resolveSecret: resolveSecretRef, routes: () => routes(), router, skills, store, stopBackground },
    get traces() {
      return traces;
    },
    app: () => app,
    mcpSupervisor: () => parts.mcpSupervisor.api(),
    jobs: () => parts.jobs.api(),
    channel: (platform) => parts.channels.current()?.adapter(platform),
    jobTurn: (input) => turns.job(input),
    ask: (input) => turns.ask(input),
    slash: (request) => slash(request.text, request),
  });
  const traces = createTraces({
    dir: paths.traces,
    now,
    capture: captureContent(env),
    // Each line is parsed again only for an exporter: off, a trace costs its write alone.
    onRecord: parts.traceExport.wanted() ? (line) => parts.traceExport.current()?.exporter?.record(line) : undefined,
  });
  // Opik / OTLP export rides beside the trace files in every role, off unless asked for.
  if (parts.traceExport.wanted()) await parts.traceExport.api();
  const prepareHome = once(() => {
    seedPromptFiles(paths, agentName);
    reconcileAgentName(paths, config.fermix_core?.agent?.name);
  });
  const delegation = createDelegation({ registry, router, env, secrets, liveConfig, agentName, now });
  const toolEnvironment = (): ToolEnvironment => ({
    sandbox: sandbox(),
    jobs: () => parts.jobs.api(),
    ...{ skills, memory, net, log: tagged.tools, config, configFile: paths.config, approvals, delegation },
    browser: () => parts.browser.sync(),
    resolveSecret: resolveSecretRef,
  });
  const compaction = config.fermix_core?.compaction;
  const compact = createCompactor({ store, routes, router, threshold: compaction?.threshold });
  const slash = lazySlash({
    ...{ approvals, sandbox, configFile: paths.config, userHome, store, skills, background, parts },
    soul: () => ({ db: db(), now, file: paths.promptFiles.soul, routes: () => routes(), router, traces }),
    usage: () => createUsageDeps({ db: db(), config: liveConfig, now }),
    detached: (input) => turns.detached(input).then((result) => result.response),
    compact: (key) => compact(key, { systemTokens: 0, force: true }),
  });
  const personalization = config.fermix_core?.personalization;
  const turns = createTurnRunner({
    ...{ store, routes, router, registry, toolEnvironment, traces, now, agentName, lanes, skills, memory, events },
    config: liveConfig,
    timezone: personalization?.timezone ?? "America/New_York",
    owner: { userName: personalization?.user_name, communicationStyle: personalization?.communication_style },
    promptFiles: role === "daemon" ? createPromptFilesReader(paths) : () => readPromptFiles(paths),
    ...{ compactionThreshold: compaction?.threshold, budget: appBudget({ db, config: liveConfig, now, paths }) },
    sources: turnSources(parts, commandProfilesSource),
    offerPluginSkills: (offered) => {
      pluginSkills = offered;
    },
    prepareHome,
    slash,
  });
  // Cross-cutting observers, each subscribing from its own file.
  logTurns(events, tagged);
  traceFailovers(events, traces);
  observeCompaction(events, { compact, enabled: compaction?.enabled !== false, log: log.withTag("compaction") });
  if (deps.backgroundReview) reviewAfterTurns(events, parts.memoryReview, log.withTag("memory"), now);
  if (role === "daemon") collectWhenIdle(events, lanes);
  const partFailed = (verb: string) => (part: { name: string }, err: Error) =>
    log.error(`${part.name} did not ${verb}: ${err.message}`);
  const app: App = {
    ...{ paths, skills, config, log, lanes, registry, toolEnvironment, routes, sandbox, prepareHome, stopBackground },
    ...{ subsystems: parts.list, traces },
    start: () => startSubsystems(parts.list, partFailed("start")),
    memoryReview: () => parts.memoryReview.api(),
    traceExport: () => parts.traceExport.current()?.exporter?.status() ?? [],
    web: () => parts.web.current()?.state() ?? { state: parts.web.wanted() ? "idle" : "disabled" },
    ask: (input) => turns.ask(input),
    idle: () => lanes.idle(),
    jobs: () => parts.jobs.api(),
    slash: (request) => slash(request.text, request),
    channels: {
      start: () => parts.channels.start(),
      status: () => parts.channels.current()?.status() ?? [],
      runtime: () => parts.channels.current(),
    },
    plugins: pluginsFacade(parts, liveConfig),
    close: async () => {
      // Every part but trace export, in reverse list order; memory.db; then whatever was traced goes out.
      await stopSubsystems(parts.list.slice(1), partFailed("stop"));
      database.close();
      await parts.traceExport.stop();
    },
  };
  return app;
}
