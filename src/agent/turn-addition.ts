import type { Caller } from "../capabilities/caller.ts";
import type { AnyTool } from "../capabilities/tool.ts";
import type { Config } from "../config/schema.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { PluginSkills } from "../skills/sources.ts";

// What the turn runner asks of the parts that add to a turn (plugins, the owner's MCP servers, command profiles,
// the coding harness, jobs' waiting answers). A leaf: the parts implement it without importing the runner.

/** The turn a part is asked about, before the model sees anything. */
export type TurnOpening = {
  key: ConversationKey;
  caller: Caller;
  /** config.toml as it is now (enable/disable apply on the next turn). */
  config: Config;
  /** A scheduled job's run: nothing is shown before it and nobody waits on its notices. */
  job: boolean;
  /** Lines for the person waiting (a CLI's stderr), not for the model. */
  onNotice?: (text: string) => void;
  /**
   * The caller made this conversation's key for this turn (a fresh session id): nothing can be waiting for it, so a
   * part that shows a conversation's waiting results need not look (nor open memory.db before the model call).
   */
  newConversation?: true;
};

/** What one part adds to a turn; every member optional. */
export type TurnAddition = {
  /** Tools beyond the registry's, as a live getter (the same array while nothing changes). */
  tools?: () => readonly AnyTool[];
  /** Skill folders the part offers (read in place); a change rescans the catalog. */
  skills?: readonly PluginSkills[];
  /** A section for the system prompt's index, after the skills (the owner's plugins). */
  promptSection?: () => string | undefined;
  /** What to tell the model of a tool name it cannot use, when this part knows more. */
  unknownToolHint?: (name: string) => string | undefined | Promise<string | undefined>;
};

/** One part's contribution, asked in list order for every turn. */
export type TurnSource = (opening: TurnOpening) => Promise<TurnAddition | undefined>;
