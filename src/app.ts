import { homedir } from "node:os";
import { compactConversation } from "./agent/compaction.ts";
import { failoverEvent } from "./agent/loop-traces.ts";
import { readPromptFiles, reconcileAgentName, seedPromptFiles } from "./agent/prompt-files.ts";
import { runSubagents } from "./agent/subagents.ts";
import { runTurn, type ToolEnvironment, type TurnInput, type TurnResult } from "./agent/turn.ts";
import { createAppBrowser } from "./browser/app-browser.ts";
import type { BrowserSession } from "./browser/browser-session.ts";
import { BUILTIN_TOOLS } from "./capabilities/builtins/registry.ts";
import { WEB_TOOLS } from "./capabilities/builtins/web-tools.ts";
import { commandProfileSource } from "./capabilities/command-profiles.ts";
import { createRegistry, type Registry } from "./capabilities/registry.ts";
import type { Caller, Delegation } from "./capabilities/tool.ts";
import { enabledChannels } from "./channels/registry.ts";
import type { Env } from "./config/env.ts";
import { createLiveConfig } from "./config/live-config.ts";
import { loadConfig } from "./config/load.ts";
import { type FermixPaths, fermixPaths, resolveHome } from "./config/paths.ts";
import { grantPath, revokePath } from "./config/sandbox-edit.ts";
import type { Config, SecretRef } from "./config/schema.ts";
import { resolveSecret } from "./config/secrets.ts";
import { FermixError } from "./error.ts";
import { createApprovals } from "./gateway/approvals.ts";
import { CANNED } from "./gateway/canned-replies.ts";
import type { ChannelState, ChannelsRuntime } from "./gateway/channels-runtime.ts";
import type { SlashRequest } from "./gateway/gateway.ts";
import { createLanes, type Lanes } from "./gateway/lanes.ts";
import { createBackgroundTasks } from "./gateway/slash/background-tasks.ts";
import { createSoulDeps } from "./gateway/slash/soul-deps.ts";
import { handleSlash, type SlashAnswer, type SlashContext } from "./gateway/slash.ts";
import { createAppHarness } from "./harness/app-harness.ts";
import type { JobService } from "./jobs/job-service.ts";
import { lazy } from "./lazy.ts";
import { joinTools } from "./mcp/outbound/join-tools.ts";
import type { OutboundMcp } from "./mcp/outbound/outbound-runtime.ts";
import { lazyDatabase } from "./memory/lazy-database.ts";
import { createMemoryStore } from "./memory/memories.ts";
import { reviewSettings } from "./memory/memory-settings.ts";
import type { ConversationKey } from "./memory/messages.ts";
import { createMessageStore } from "./memory/messages.ts";
import type { Review } from "./memory/review.ts";
import { createGuardedFetch } from "./net/guarded-fetch.ts";
import type { GuardedFetch } from "./net/types.ts";
import type { ExporterStatus, TraceExport } from "./observability/export/trace-export.ts";
import { createLog, type Log } from "./observability/log.ts";
import { captureContent, createTraces } from "./observability/traces.ts";
import { pluginsConfigured } from "./plugins/dev-local.ts";
import type { McpSupervisor } from "./plugins/mcp-rail/supervisor.ts";
import type { PluginRuntime } from "./plugins/plugin-runtime.ts";
import { pluginsSection, unavailablePluginTool } from "./plugins/prompt-section.ts";
import type { PluginsReport } from "./protocol/schemas.ts";
import { oneShotSubagentRoutes } from "./providers/one-shot-route.ts";
import type { FailoverInfo } from "./providers/router.ts";
import { type Route, type RouteChoice, resolveRoutes } from "./providers/routes.ts";
import { cronRoutes, subagentRoutes, validateRouting } from "./providers/routing-config.ts";
import { WIRES } from "./providers/wires/registry.ts";
import type { SqlDatabase } from "./runtime/sqlite.ts";
import { createLiveSandbox } from "./sandbox/live-sandbox.ts";
import type { Sandbox } from "./sandbox/types.ts";
import { createSkillCatalog, type SkillCatalog } from "./skills/catalog.ts";
import { skillsIndex } from "./skills/prompt-index.ts";
import { type PluginSkills, pluginFolders } from "./skills/sources.ts";

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
  /**
   * "daemon" runs MCP plugin servers in the background from boot; "oneshot" (the default, an in-process ask)
   * starts one only when the model calls one of its tools.
   */
  role?: "daemon" | "oneshot";
};

export type App = {
  paths: FermixPaths;
  skills: SkillCatalog;
  config: Config;
  log: Log;
  lanes: Lanes;
  registry: Registry;
  /** What tools need to run (the sandbox as config.toml says now): a turn's, or an inbound MCP call's. */
  toolEnvironment(): ToolEnvironment;
  routes(choice?: RouteChoice): Route[];
  /** The sandbox as config.toml says now (grants apply without a restart). */
  sandbox(): Sandbox;
  /** The memory review runner (`fermix memory review --now`, revisions, restore), one per process. */
  memoryReview(): Promise<Review>;
  /** The Opik / OTLP exporters' counters (empty when both are off), for `status` and doctor. */
  traceExport(): ExporterStatus[];
  /**
   * One turn in its conversation's lane; slash commands are answered before any model sees them. Resolves
   * with the reply; follow-up work (compaction) continues in the lane — `idle()` waits for it.
   */
  ask(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  idle(): Promise<void>;
  /** Scheduled jobs: the store, the runner and, in the daemon, the clock (loaded on first use). */
  jobs(): Promise<JobService>;
  /** A chat message's slash command: a reply, or (/ultra) the turn to run instead; undefined when the text is not one. */
  slash(request: SlashRequest): Promise<SlashAnswer | undefined>;
  /** /stop's share of the app: ends every running /background task; how many. */
  stopBackground(): number;
  /** The daemon's chat channels: started at boot when config.toml enables any (their code loads only then). */
  channels: {
    start(): Promise<void>;
    status(): ChannelState[];
    runtime(): ChannelsRuntime | undefined;
  };
  /** Prepares FERMIX_HOME for a daemon: prompt files seeded, the agent's name reconciled. */
  prepareHome(): void;
  /** Plugins as this process runs them: their live states, a reload, and the servers' start at boot. */
  plugins: {
    report(): Promise<PluginsReport>;
    /** Re-reads plugins and starts quarantined servers fresh (and dev_local ones, with `devLocal`). */
    reload(opts?: { devLocal?: boolean }): Promise<void>;
    /** Starts the servers of ready MCP plugins in the background (the daemon at boot); never waits for them. */
    startServers(): Promise<void>;
    /** Resolves once no plugin server is starting (each is ready or quarantined). */
    settled(): Promise<void>;
    /** Whether config.toml enables any plugin or names dev_local folders now. */
    enabled(): boolean;
  };
  /** Closes memory.db and stops plugin servers; resolves once their process trees are gone. */
  close(): Promise<void>;
};

/** The composition root: the one place default dependencies are chosen and wired together. */
export async function createApp(deps: AppDeps): Promise<App> {
  const paths = fermixPaths(resolveHome(deps.env));
  const config = await loadConfig(paths.config);
  validateRouting(config, paths.config);
  const now = deps.now ?? Date.now;
  const role = deps.role ?? "oneshot";
  const knownSecrets: string[] = [];
  // stderr's style (colour, plain, journald) is decided from env and fd 2 once consola loads: observability/stderr-sink.ts.
  const log = createLog({
    file: paths.logFile,
    stderr: deps.logToStderr && { env: deps.env },
    secrets: () => knownSecrets,
  });
  // Opik / OTLP export rides beside the trace files, off unless asked for; a bad setting is logged, not fatal.
  const traceExport = await startTraceExport(deps, config, paths, log, knownSecrets);
  const traces = createTraces({
    dir: paths.traces,
    now,
    secrets: () => knownSecrets,
    capture: captureContent(deps.env),
    onRecord: traceExport?.record,
  });
  const lanes = createLanes();
  const secrets = { env: deps.env, secretsDir: paths.secrets, profile: config.fermix_core?.profile };
  const agentName = config.fermix_core?.agent?.name?.trim() || "fermix";
  // The daemon checkpoints memory.db on a timer, off the path of a turn's commit or a job claim.
  const database = lazyDatabase(paths.db, {
    backgroundCheckpoints: role === "daemon",
    onError: (err) => log.withTag("memory").warn(`memory.db checkpoint failed: ${err.message}`),
  });
  const store = lazy(() => createMessageStore(database.get(), now));
  const memory = lazy(() => createMemoryStore(database.get(), now));
  // The daemon consolidates memories on its ~24 h gate; a one-shot CLI ask never loads or waits for that.
  let review: Promise<Review> | undefined;
  const memoryReview = () =>
    (review ??= import("./agent/memory-review.ts").then(({ createReviewRunner }) =>
      createReviewRunner({
        db: database.get(),
        routes: () => routes(),
        router,
        now,
        paths: { userMd: paths.promptFiles.user, memoryMd: paths.promptFiles.memory },
        settings: reviewSettings(config.fermix_core?.memory),
      }),
    ));
  const liveConfig = createLiveConfig(paths.config, config, log.withTag("config"));
  const sandbox = createLiveSandbox({
    config: liveConfig,
    userHome: deps.env.HOME || homedir(),
    fermixHome: paths.home,
  });
  // Plugins cost nothing until one is enabled: their modules load on the first turn that has one.
  let pluginRuntime: Promise<PluginRuntime> | undefined;
  const plugins = () =>
    (pluginRuntime ??= Promise.all([import("./plugins/plugin-runtime-factory.ts"), mcpSupervisor()]).then(
      ([{ buildPluginRuntime }, mcp]) =>
        buildPluginRuntime({
          paths,
          config,
          net,
          env: deps.env,
          log: log.withTag("plugins"),
          resolveSecret: (ref, slot) => resolveSecret(ref, slot, secrets),
          role,
          mcp,
        }),
    ));
  // One MCP supervisor for plugin servers and the owner's [mcp.servers]; both load only when one is configured.
  let supervisor: Promise<McpSupervisor> | undefined;
  const mcpSupervisor = () =>
    (supervisor ??= import("./plugins/mcp-rail/shared-supervisor.ts").then(({ buildMcpSupervisor }) =>
      buildMcpSupervisor({ paths, config, log: log.withTag("plugins") }),
    ));
  let outboundMcp: Promise<OutboundMcp> | undefined;
  const outbound = () =>
    (outboundMcp ??= import("./mcp/outbound/outbound-runtime.ts").then(({ createOutboundMcp }) =>
      createOutboundMcp({
        supervisor: mcpSupervisor,
        home: paths.home,
        env: deps.env,
        cwd: deps.env.HOME || paths.home,
        log: log.withTag("mcp"),
        // A header's token is redacted from logs like a provider key.
        resolveSecret: (ref, slot) => {
          const value = resolveSecret(ref, slot, secrets);
          if (!knownSecrets.includes(value)) knownSecrets.push(value);
          return value;
        },
        role,
        callWaitMs: role === "daemon" ? 5_000 : (config.fermix_core?.plugins?.discovery_timeout_seconds ?? 10) * 1000,
      }),
    ));
  const mcpConfigured = (c: Config) => Object.keys(c.mcp?.servers ?? {}).length > 0;

  const remember = (routes: Route[]) => {
    for (const r of routes)
      if (r.target.apiKey && !knownSecrets.includes(r.target.apiKey)) knownSecrets.push(r.target.apiKey);
    return routes;
  };
  const routes = (choice: RouteChoice = {}) => remember(resolveRoutes(config, deps.env, secrets, choice));
  const providerLog = log.withTag("providers");
  const router = {
    wires: WIRES,
    fetch: deps.fetch ?? fetch,
    now,
    onRetry: (i: { provider: string; attempt: number; failure: { message: string } }) =>
      providerLog.warn(`retrying ${i.provider} (attempt ${i.attempt + 1}) after: ${i.failure.message}`),
    onFailover: (i: FailoverInfo) => {
      providerLog.warn(`failing over from ${i.from} to ${i.to} after: ${i.failure.message}`);
      traces.write("agent_event", failoverEvent(i));
    },
    warn: (message: string) => providerLog.warn(message),
  };
  const registry = createRegistry([...BUILTIN_TOOLS, ...WEB_TOOLS]);
  const approvals = createApprovals(database.get, now);
  const net = deps.net ?? createGuardedFetch();
  const toolLog = log.withTag("tools");
  const delegation: Delegation = {
    run: (tasks, parent, opts) =>
      runSubagents(tasks, parent, opts, {
        registry,
        router,
        // As config.toml says now (like unpinned jobs): a model_routing_config change applies to the next sub-agent.
        routes: (oneShot) =>
          remember(
            oneShot
              ? oneShotSubagentRoutes(liveConfig(), deps.env, secrets, oneShot)
              : subagentRoutes(liveConfig(), deps.env, secrets),
          ),
        agentName,
        now,
      }),
  };
  // The skills of enabled plugins, as the latest turn's plugin view offered them (read in place, at guest trust).
  let pluginSkills: readonly PluginSkills[] = [];
  let pluginSkillsKey: string | undefined;
  const skills = createSkillCatalog({ homeSkillsDir: paths.skills, pluginSkills: () => pluginFolders(pluginSkills) });
  // Jobs load on first use: a daemon starts their clock at boot; an ask loads them only when a job tool runs.
  let jobService: Promise<JobService> | undefined;
  const jobs = () =>
    (jobService ??= import("./jobs/job-service.ts").then(({ createJobService }) =>
      createJobService({
        db: database.get(),
        role,
        config: liveConfig,
        now,
        log: log.withTag("jobs"),
        turn: (input) => runJobTurn(input),
        routes: (pin) =>
          remember(
            pin
              ? resolveRoutes(liveConfig(), deps.env, secrets, pin).slice(0, 1)
              : cronRoutes(liveConfig(), deps.env, secrets),
          ),
        skill: async (name) => {
          const found = (await skills.load()).skills.find((s) => s.name === name);
          return found && { instructions: found.body, allowedTools: found.allowedTools };
        },
        notifyDaemon: () => void notifyDaemonOfJobs(paths.socket),
        // The daemon's running channels (a one-shot CLI has none: a chat delivery there fails with the reason).
        channel: (platform) => channelsRuntime?.adapter(platform),
        networkReady: async (jobRoutes) => {
          if (liveConfig().fermix_core?.jobs?.network_readiness_enabled === false || !jobRoutes[0]) return;
          const { waitForNetwork } = await import("./jobs/network-readiness.ts");
          await waitForNetwork(jobRoutes[0].target.baseUrl, { log: (m) => log.withTag("jobs").warn(m) });
        },
      }),
    ));
  // Coding-harness runs: the service loads on first use; a daemon asks at boot so leftovers are marked interrupted.
  const harness = createAppHarness({
    db: () => database.get(),
    role,
    config: liveConfig,
    env: deps.env,
    home: paths.home,
    now,
    log: log.withTag("harness"),
    channel: (platform) => channelsRuntime?.adapter(platform),
    jobs,
  });
  // One Chromium per process, made on the browser tool's first call (src/browser/app-browser.ts).
  let browser: BrowserSession | undefined;
  const browserSession = (): BrowserSession => {
    browser ??= createAppBrowser({ paths, config: liveConfig, log: log.withTag("browser") });
    return browser;
  };
  const toolEnvironment = (): ToolEnvironment => ({
    sandbox: sandbox(),
    jobs,
    skills,
    memory,
    net,
    log: toolLog,
    config,
    configFile: paths.config,
    browser: browserSession,
    approvals,
    delegation,
    resolveSecret: (ref, slot) => resolveSecret(ref, slot, secrets),
  });
  const compaction = config.fermix_core?.compaction;
  const compact = (input: TurnInput, systemTokens: number, force: boolean) =>
    compactConversation(
      input.key,
      { systemTokens, threshold: compaction?.threshold, force },
      { store, routes: routes(input.choice), router, signal: input.signal },
    );

  let prepared = false;
  const prepareHome = () => {
    if (prepared) return;
    prepared = true;
    seedPromptFiles(paths, agentName);
    reconcileAgentName(paths, config.fermix_core?.agent?.name);
  };

  const runOne = async (
    input: TurnInput & { caller: Caller },
  ): Promise<{ result: TurnResult; followUp?: () => Promise<void> }> => {
    // A job's task is never a slash command, and its answers wait for no one; an /ultra turn's text is its prompt.
    const answer =
      input.job || input.runProfile || !input.text.trimStart().startsWith("/")
        ? undefined
        : await handleSlash(input.text, slashContext({ caller: input.caller, conversation: input.key }));
    if (typeof answer === "string")
      return { result: { response: answer, provider: "fermix", model: "slash-command", turnId: "" } };
    return runAgent(answer ? { ...input, text: answer.turn.text, runProfile: answer.turn.runProfile } : input);
  };

  /** One agent turn, no slash commands: a conversation's turn, a job's run, or detached /background work. */
  const runAgent = async (
    input: TurnInput & { caller: Caller },
  ): Promise<{ result: TurnResult; followUp?: () => Promise<void> }> => {
    // Resolved once per turn (a "@keyring" key may mean a keyring lookup); no provider → fail here,
    // before anything is written to FERMIX_HOME.
    const turnRoutes = input.job?.routes ?? routes(input.choice);
    prepareHome();
    // Enabled plugins and their readiness, as config.toml says now (enable/disable apply on the next turn). Once
    // the runtime exists it is always asked, so disabling the last plugin stops its server.
    const turnConfig = liveConfig();
    const pluginView =
      pluginRuntime || pluginsConfigured(turnConfig)
        ? await plugins()
            .then((runtime) => runtime.forTurn(turnConfig))
            .catch((err: unknown) => {
              log.withTag("plugins").warn(`plugins could not be read: ${(err as Error).message}`);
              return undefined;
            })
        : undefined;
    // The owner's [mcp.servers] tools: operator turns only (a guest could call none of them anyway).
    const mcpTools =
      input.caller.trust === "operator" && (outboundMcp || mcpConfigured(turnConfig))
        ? await outbound()
            .then((o) => o.forTurn(turnConfig))
            .catch((err: unknown) => {
              log.withTag("mcp").warn(`MCP servers could not be read: ${(err as Error).message}`);
              return undefined;
            })
        : undefined;
    // The coding harness's tools: operator turns, once the owner approved it (src/harness/gate.ts).
    const codingTools = input.caller.trust === "operator" ? await harness.tools(turnConfig) : undefined;
    const pluginStates = () => pluginView?.summaries() ?? [];
    // Enabled plugins' skills join the catalog; a change of them (a plugin enabled, a dev_local folder) rescans it.
    const offeredSkills = JSON.stringify(pluginView?.skills ?? []);
    if (offeredSkills !== pluginSkillsKey) {
      pluginSkills = pluginView?.skills ?? [];
      if (pluginSkillsKey !== undefined) await skills.reload();
      pluginSkillsKey = offeredSkills;
    }
    const { skills: known } = await skills.load();
    // The daemon logs these (once per change); a one-shot ask has only stderr to be loud on.
    if (role === "oneshot")
      for (const problem of pluginView?.problems ?? []) input.onNotice?.(`fermix: ${problem.message}`);
    // The "owner" recall scope covers the conversations the owner spoke in.
    memory.noteConversation(input.key, input.caller.trust);
    if (!input.job) await showJobResults(input);
    if (!input.job) await harness.showPending(input);
    const result = await runTurn(input, {
      store,
      routes: () => turnRoutes,
      router,
      registry,
      toolEnvironment,
      traces,
      now,
      agentName,
      timezone: config.fermix_core?.personalization?.timezone ?? "America/New_York",
      owner: {
        userName: config.fermix_core?.personalization?.user_name,
        communicationStyle: config.fermix_core?.personalization?.communication_style,
      },
      promptFiles: () => readPromptFiles(paths),
      skillsIndex: (surface) =>
        // The owner's plugins are no business of a guest, who can call none of them.
        [skillsIndex(known, surface), input.caller.trust === "operator" ? pluginsSection(pluginStates()) : undefined]
          .filter(Boolean)
          .join("\n\n"),
      // A turn reads only the plugins on this machine; a catalog plugin that is disabled is looked up when named.
      unknownToolHint: async (name) =>
        unavailablePluginTool(name, pluginStates()) ??
        (pluginRuntime ? await (await pluginRuntime).catalogHint(name, turnConfig) : undefined),
      extraTools: joinTools(
        pluginView && (() => pluginView.tools()),
        mcpTools,
        commandProfileSource(turnConfig, input.caller),
        codingTools,
      ),
      deferTools: turnConfig.fermix_core?.tools?.tool_search?.enabled !== false,
      compactionThreshold: compaction?.threshold,
      onToolExecution: (e) =>
        toolLog.info(
          `${e.name} ${e.ok ? "ok" : "error"} in ${e.durationMs} ms (${e.conversation.channel}:${e.conversation.chat})`,
        ),
    });
    if (input.job) return { result };
    return {
      result,
      followUp: async () => {
        if (compaction?.enabled !== false) {
          const done = await compact(input, result.systemTokens ?? 0, false);
          if (done.compacted) {
            log
              .withTag("compaction")
              .info(`compacted ${done.foldedMessages} messages of ${input.key.channel}:${input.key.chat}`);
          }
        }
        if (deps.backgroundReview && config.fermix_core?.memory?.review_enabled !== false) {
          void memoryReview()
            .then((runner) => runner.maybeRun())
            .then((r) => {
              if (r.status === "failed") log.withTag("memory").warn(`memory review failed: ${r.error}`);
            });
        }
      },
    };
  };

  /** Answers of jobs this conversation created (origin delivery), shown before its next turn. */
  const showJobResults = async (input: TurnInput) => {
    if (!input.onNotice || !hasPendingDeliveries(database.get())) return;
    const [{ store }, { deliveryMessage }] = await Promise.all([jobs(), import("./jobs/job-runner.ts")]);
    for (const { job, run } of store.pendingDeliveries(input.key)) {
      input.onNotice(`fermix: job "${job.name}" (${run.id}, ${run.status}):\n${deliveryMessage(job, run)}`);
      store.delivered(run.id, "sent");
    }
  };
  // This process's /background work, across chats; /stop ends it with the turns.
  const background = createBackgroundTasks({ now });
  const stopBackground = () => background.stopAll(new FermixError("stopped", "stopped by the owner with /stop"));
  const userHome = deps.env.HOME || homedir();
  const slashContext = (input: {
    caller: Caller;
    conversation: ConversationKey;
    /** Set for a chat message (the gateway's SlashRequest); a CLI ask has none of these. */
    senderId?: string;
    access?: { commandAllowlist: readonly string[] };
    post?: (text: string) => Promise<void>;
  }): SlashContext => ({
    caller: input.caller,
    conversation: input.conversation,
    surface: input.access ? "chat" : "cli",
    senderId: input.senderId,
    commandAllowlist: input.access?.commandAllowlist,
    approvals,
    sandbox: {
      status: () => sandbox().status(),
      grant: async (path) => {
        const edit = await grantPath(paths.config, path, (p) => sandbox().isGrantable(p));
        sandbox();
        return { path: edit.path, changed: edit.changed };
      },
      revoke: async (path) => {
        const edit = await revokePath(paths.config, path, { userHome });
        sandbox();
        return { path: edit.path };
      },
      userHome,
    },
    startFresh: () => store.startFresh(input.conversation),
    skills,
    soul: () =>
      createSoulDeps({ db: database.get(), now, file: paths.promptFiles.soul, routes: () => routes(), router, traces }),
    // Detached work needs somewhere to post its result: chat channels only.
    background: input.post && {
      tasks: background,
      // Outside the conversation's lane (it would hold up the chat) and unattended: nobody answers its prompts.
      run: (text, signal) =>
        runAgent({ key: input.conversation, text, caller: { ...input.caller, attended: false }, signal }).then(
          (outcome) => outcome.result.response,
        ),
      post: input.post,
    },
    compact: async () => {
      const done = await compact({ key: input.conversation, text: "" }, 0, true);
      return done.compacted
        ? `Compacted: ${done.foldedMessages} earlier messages are now a summary.`
        : `Nothing compacted: ${done.reason}.`;
    },
  });
  const ask = (input: TurnInput & { caller: Caller }) =>
    new Promise<TurnResult>((resolve, reject) => {
      void lanes.run(laneOf(input), async () => {
        let outcome: Awaited<ReturnType<typeof runOne>>;
        try {
          outcome = await runOne(input);
        } catch (err) {
          reject(err);
          return;
        }
        resolve(outcome.result);
        // Still inside the lane: the conversation's next turn waits for this and sees its result.
        await outcome
          .followUp?.()
          .catch((err) => log.withTag("compaction").warn(`compaction failed: ${(err as Error).message}`));
      });
    });
  let channelsRuntime: ChannelsRuntime | undefined;
  const startChannels = async () => {
    if (!enabledChannels(config).length) return;
    const [{ createGateway }, { createChannelsRuntime }, { createTranscriber }] = await Promise.all([
      import("./gateway/gateway.ts"),
      import("./gateway/channels-runtime.ts"),
      import("./media/transcription/transcriber.ts"),
    ]);
    const channelLog = log.withTag("channels");
    // Voice notes become text before the turn; a key it resolves is redacted from logs like a provider key.
    const transcriber = createTranscriber({
      config: liveConfig,
      env: deps.env,
      log: channelLog,
      fetch: deps.fetch ?? fetch,
      resolveSecret: (ref, slot) => {
        const key = resolveSecret(ref, slot, secrets);
        if (!knownSecrets.includes(key)) knownSecrets.push(key);
        return key;
      },
    });
    const gateway = createGateway({
      ask,
      slash: (request) => handleSlash(request.text, slashContext(request)),
      stopBackground,
      markStopped: (conversation, text) =>
        store.commitTurn(
          conversation,
          [
            { role: "user", content: [{ type: "text", text }] },
            { role: "assistant", content: [{ type: "text", text: CANNED.stoppedMarker }] },
          ],
          { turnId: "stopped" },
        ),
      media: transcriber,
      traces,
      log: channelLog,
      now,
    });
    channelsRuntime = createChannelsRuntime({
      config,
      env: deps.env,
      gateway,
      resolveSecret: (ref, slot) => resolveSecret(ref as SecretRef, slot, secrets),
      log: channelLog,
      now,
    });
    await channelsRuntime.start();
  };
  const runJobTurn = (input: TurnInput & { caller: Caller }) =>
    new Promise<TurnResult>((resolve, reject) => {
      void lanes.run(laneOf(input), () => runOne(input).then((o) => resolve(o.result), reject));
    });

  return {
    paths,
    skills,
    config,
    log,
    lanes,
    registry,
    toolEnvironment,
    routes,
    sandbox,
    memoryReview,
    ask,
    idle: () => lanes.idle(),
    traceExport: () => traceExport?.status() ?? [],
    jobs,
    slash: (request) => handleSlash(request.text, slashContext(request)),
    stopBackground,
    channels: {
      start: startChannels,
      status: () => channelsRuntime?.status() ?? [],
      runtime: () => channelsRuntime,
    },
    prepareHome,
    plugins: {
      // An idle daemon with no plugin enabled loads nothing for plugins, not even to say so.
      report: async () => {
        if (!pluginRuntime && !pluginsConfigured(liveConfig())) return { active: false, plugins: [], problems: [] };
        return { active: true, ...(await (await plugins()).report(liveConfig())) };
      },
      reload: async (opts = {}) => {
        if (!pluginRuntime && !pluginsConfigured(liveConfig())) return;
        await (await plugins()).reload(liveConfig(), opts);
      },
      enabled: () => pluginsConfigured(liveConfig()),
      settled: async () => {
        if (pluginRuntime) await (await pluginRuntime).settled();
        if (outboundMcp) await (await outboundMcp).settled();
      },
      startServers: async () => {
        // The owner's [mcp.servers] start beside the plugins' servers, on the same supervisor, in the background.
        if (mcpConfigured(liveConfig()))
          void outbound()
            .then((o) => o.startServers(liveConfig()))
            .catch((err) => log.withTag("mcp").error(`MCP servers did not start: ${(err as Error).message}`));
        if (pluginsConfigured(liveConfig())) await (await plugins()).startServers(liveConfig());
      },
    },
    close: async () => {
      await browser?.stop();
      await harness.stop();
      await channelsRuntime?.stop();
      if (jobService) await (await jobService).stop();
      database.close();
      if (pluginRuntime) await (await pluginRuntime).stopAll();
      if (supervisor) await (await supervisor).stopAll();
      // Last: whatever the stopping work traced still goes out, for at most the export timeout.
      await traceExport?.close();
    },
  };
}

/** The trace exporters, loaded only when one is switched on. */
async function startTraceExport(
  deps: AppDeps,
  config: Config,
  paths: FermixPaths,
  log: Log,
  knownSecrets: string[],
): Promise<TraceExport | undefined> {
  const o = config.fermix_core?.observability;
  if (deps.env.FERMIX_OPIK_ENABLED !== "1" && o?.otlp_enabled !== true) return undefined;
  const { planTraceExport, createTraceExport } = await import("./observability/export/trace-export.ts");
  const exportLog = log.withTag("traces");
  try {
    const plan = planTraceExport(deps.env, config, {
      env: deps.env,
      secretsDir: paths.secrets,
      profile: config.fermix_core?.profile,
    });
    knownSecrets.push(...plan.secrets);
    return createTraceExport(plan, { fetch: deps.fetch ?? fetch, log: exportLog });
  } catch (err) {
    exportLog.error(`trace export is off: ${(err as Error).message}`);
    return undefined;
  }
}

/** One indexed look before loading the jobs module: most turns have no job answer waiting. */
function hasPendingDeliveries(db: SqlDatabase): boolean {
  return db.query("SELECT 1 AS x FROM job_runs WHERE delivery_status = 'pending' LIMIT 1").get() !== null;
}

/** A one-shot CLI created or changed a job: a running daemon re-reads its clock (best effort, bounded). */
async function notifyDaemonOfJobs(socket: string): Promise<void> {
  try {
    const { createDaemonClient } = await import("./protocol/client.ts");
    await createDaemonClient(socket).jobsChanged();
  } catch {
    // No daemon, or an old one: its minute-by-minute reconciliation finds the job anyway.
  }
}

function laneOf(input: TurnInput): string {
  return `${input.key.channel}:${input.key.chat}:${input.key.thread ?? ""}`;
}
