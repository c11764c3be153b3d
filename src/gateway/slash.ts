import type { Caller, DirectoryApprovals } from "../capabilities/tool.ts";
import type { ConversationKey } from "../memory/messages.ts";

export type SlashContext = {
  caller: Caller;
  conversation: ConversationKey;
  approvals: DirectoryApprovals;
  /** Persists a confirmed grant to [sandbox] allowed_roots and makes it live. */
  grant(path: string): Promise<void>;
  /** Folds the conversation's older turns into a summary now; returns what happened, for the owner. */
  compact?(): Promise<string>;
};

/**
 * Slash commands run before the agent: they never reach a model. Returns the reply, or undefined when
 * the text is not a command fermix handles (it then goes to the model as ordinary text).
 */
export async function handleSlash(text: string, ctx: SlashContext): Promise<string | undefined> {
  const match = /^\/(\w+)(?:\s+(.*))?$/s.exec(text.trim());
  if (!match) return undefined;
  const [, command, rest = ""] = match;
  switch (command) {
    case "confirm":
      return confirm(rest.trim(), ctx);
    case "compact":
      if (ctx.caller.trust !== "operator") return "Only the owner can compact a conversation.";
      return ctx.compact ? ctx.compact() : "Compaction is not available here.";
    default:
      return undefined;
  }
}

async function confirm(token: string, ctx: SlashContext): Promise<string> {
  // Sandbox changes are the owner's alone; no allowlist can hand them to a guest.
  if (ctx.caller.trust !== "operator") return "Only the owner can confirm directory access.";
  if (!token) return "Usage: /confirm TOKEN (the token from the access request).";
  const result = ctx.approvals.confirm(token, ctx.conversation);
  if (!result.ok) return `Not confirmed: ${result.reason}.`;
  await ctx.grant(result.path);
  return `Granted access to ${result.path} (added to [sandbox] allowed_roots). Run your request again.`;
}
