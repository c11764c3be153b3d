import type { ToolCallPart, ToolSpec } from "../providers/types.ts";
import type { Caller } from "./caller.ts";
import type { ChannelReply } from "./channel-reply.ts";
import type { AnyTool, ToolContext, ToolResult } from "./tool.ts";

export type ToolOutcome = ToolResult & { name: string; durationMs: number };

/** Every tool by name: what a caller may see, each tool's spec for a provider, and the calls a model makes. */
export interface Registry {
  all(): AnyTool[];

  /** The tools this caller may see and call; the chat tools only in a channel turn whose platform supports them. */
  surface(caller: Caller, channel?: ChannelReply): AnyTool[];

  spec(tool: AnyTool): ToolSpec;

  /** The bytes a tool's spec adds to a provider request: what tool-schema deferral weighs. */
  specSize(tool: AnyTool): number;

  /**
   * Runs one call from the model. Nothing here throws: an unknown or forbidden tool, bad arguments,
   * a timeout or a crash all come back as an error result the model can read and correct.
   */
  dispatch(call: ToolCallPart, ctx: ToolContext): Promise<ToolOutcome>;
}
