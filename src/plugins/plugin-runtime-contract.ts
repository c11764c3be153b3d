import type { AnyTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import type { PluginSkills } from "../skills/sources.ts";
import type { DevLocalProblem } from "./dev-local.ts";
import type { LivePlugin } from "./live-status.ts";
import type { PluginSummary } from "./prompt-section.ts";

/** What a turn sees of the plugins; the getters stay current while the turn runs (a server coming up mid-turn). */
export interface PluginView {
  summaries(): PluginSummary[];
  tools(): readonly AnyTool[];
  /** dev_local folders that did not load, each naming the folder and the problem. */
  problems: readonly DevLocalProblem[];
  /** The skills enabled plugins declare, to be read in place. */
  skills: readonly PluginSkills[];
}

/**
 * What turns get from the plugins, computed when something changes — config.toml, the store, a secret, a
 * server's status or tool list — and reused by every turn in between.
 */
export interface PluginRuntime {
  /**
   * What to say about a tool named after a plugin this turn did not read (a catalog plugin that is disabled or
   * not installed): the catalog is loaded for that, when it happens, rather than for every turn.
   */
  catalogHint(tool: string, config: Config): Promise<string | undefined>;
  forTurn(config: Config): Promise<PluginView>;
  /**
   * Every plugin this home knows, with its live state: the readiness ladder, then for a ready MCP plugin
   * whether its server is starting (attempt n/N), ready (n tools) or quarantined (why) — in this process.
   */
  report(config: Config): Promise<{ plugins: LivePlugin[]; problems: DevLocalProblem[] }>;
  /** Re-reads everything and starts quarantined servers fresh: what enable, disable and `plugins reload` ask. */
  reload(config: Config, opts?: { devLocal?: boolean }): Promise<void>;
  /** A server's status or tool list changed: the next look at the view rebuilds its MCP part. */
  serverChanged(): void;
  /** Resolves once no server is starting any more (each ready or quarantined). */
  settled(): Promise<void>;
  /** Brings the servers of ready plugins up in the background (the daemon, at boot). */
  startServers(config: Config): Promise<void>;
  stopAll(): Promise<void>;
}
