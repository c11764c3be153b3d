import type { AnyTool } from "../../capabilities/tool.ts";
import type { Config } from "../../config/schema.ts";
import type { OutboundStatus } from "./status.ts";

/** The owner's `[mcp.servers]`: started for the turns that need them, their tools offered as `mcp_<server>_<tool>`. */
export interface OutboundMcp {
  /** Whether config.toml configures any server (a turn without any loads nothing for them). */
  configured(config: Config): boolean;

  /** Readies this turn's servers and returns their tools as they are now (the getter stays current mid-turn). */
  forTurn(config: Config): Promise<() => readonly AnyTool[]>;

  /** The daemon at boot: every configured server starts in the background. */
  startServers(config: Config): Promise<void>;

  /** Each configured server's state in this process, for doctor and status. */
  report(config: Config): OutboundStatus[];

  settled(): Promise<void>;
}
