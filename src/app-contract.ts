import type { ToolEnvironment, TurnInput, TurnResult } from "./agent/turn.ts";
import type { Caller } from "./capabilities/caller.ts";
import type { Registry } from "./capabilities/registry-contract.ts";
import type { FermixPaths } from "./config/paths.ts";
import type { Config } from "./config/schema.ts";
import type { ChannelState, ChannelsRuntime } from "./gateway/channels-runtime-contract.ts";
import type { SlashRequest } from "./gateway/gateway.ts";
import type { Lanes } from "./gateway/lanes-contract.ts";
import type { SlashAnswer } from "./gateway/slash/command.ts";
import type { JobService } from "./jobs/job-service-contract.ts";
import type { Review } from "./memory/review-contract.ts";
import type { ExporterStatus } from "./observability/export/trace-export.ts";
import type { Log } from "./observability/log.ts";
import type { Traces } from "./observability/traces.ts";
import type { PluginsReport } from "./protocol/schemas.ts";
import type { Route, RouteChoice } from "./providers/routes.ts";
import type { Sandbox } from "./sandbox/types.ts";
import type { SkillCatalog } from "./skills/catalog.ts";
import type { Subsystem } from "./subsystem.ts";
import type { WebState } from "./web/web-server-contract.ts";

/** The program as the CLI verbs, the daemon and the MCP server use it (built by app.ts). */
export interface App {
  paths: FermixPaths;
  skills: SkillCatalog;
  config: Config;
  log: Log;
  /** The trace files' writer (`traces/YYYY-MM-DD/<type>.jsonl`): the daemon's fault policy writes `daemon_error` here. */
  traces: Traces;
  lanes: Lanes;
  registry: Registry;
  /** The daemon's parts in list order (src/subsystems.ts): their states for status, health and doctor. */
  subsystems: readonly Subsystem[];
  /** The daemon's boot: every wanted part started in list order (some in the background). */
  start(): Promise<void>;
  /** What tools need to run (the sandbox as config.toml says now): a turn's, or an inbound MCP call's. */
  toolEnvironment(): ToolEnvironment;
  routes(choice?: RouteChoice): Route[];
  /** The sandbox as config.toml says now (grants apply without a restart). */
  sandbox(): Sandbox;
  /** The memory review runner (`fermix memory review --now`, revisions, restore), one per process. */
  memoryReview(): Promise<Review>;
  /** The Opik / OTLP exporters' counters (empty when both are off), for `status` and doctor. */
  traceExport(): ExporterStatus[];
  /** The setup page's listener: its state, or "disabled". */
  web(): WebState;
  /**
   * One turn in its conversation's lane; slash commands are answered before any model sees them. Resolves with
   * the reply; follow-up work (compaction) continues in the lane — `idle()` waits for it.
   */
  ask(input: TurnInput & { caller: Caller }): Promise<TurnResult>;
  idle(): Promise<void>;
  /** Scheduled jobs: the store, the runner and, in the daemon, the clock (loaded on first use). */
  jobs(): Promise<JobService>;
  /** A chat message's slash command: a reply, or (/ultra) the turn to run instead; undefined when the text is not one. */
  slash(request: SlashRequest): Promise<SlashAnswer | undefined>;
  /** /stop's share of the app: ends every running /background task; how many. */
  stopBackground(): number;
  /** The daemon's chat channels (their code loads only when config.toml enables any). */
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
    /** Starts the servers of ready MCP plugins and [mcp.servers] in the background; never waits for them. */
    startServers(): Promise<void>;
    /** Resolves once no plugin server is starting (each is ready or quarantined). */
    settled(): Promise<void>;
    /** Whether config.toml enables any plugin or names dev_local folders now. */
    enabled(): boolean;
  };
  /** Stops every loaded part in reverse list order and closes memory.db; resolves once their processes are gone. */
  close(): Promise<void>;
}
