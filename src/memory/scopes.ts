import type { ConversationKey } from "./messages-contract.ts";

/**
 * Where a fact belongs. The operator's facts are one shared scope; a guest's facts stay with the
 * conversation it had, and a scheduled job's with the job, so neither can read or overwrite the owner's.
 */
export const OWNER_SCOPE = "owner";

/** Parts are URI-encoded so a ':' inside a channel, chat or thread id cannot make two scopes collide. */
export function conversationScope(key: ConversationKey): string {
  return `conversation:${[key.channel, key.chat, key.thread ?? ""].map(encodeURIComponent).join(":")}`;
}

export function jobScope(jobId: string): string {
  return `job:${encodeURIComponent(jobId)}`;
}

export function isScope(scope: string): boolean {
  return scope === OWNER_SCOPE || /^conversation:[^:]*:[^:]*:[^:]*$/.test(scope) || /^job:[^:]+$/.test(scope);
}

/** The conversation a conversation scope names, for showing where a fact came from. */
export function describeScope(scope: string): string {
  if (scope === OWNER_SCOPE) return "owner";
  const conversation = /^conversation:([^:]*):([^:]*):([^:]*)$/.exec(scope);
  if (conversation) {
    const [channel, chat, thread] = conversation.slice(1).map((p) => decodeURIComponent(p!));
    return `conversation ${channel}:${chat}${thread ? `:${thread}` : ""}`;
  }
  const job = /^job:(.+)$/.exec(scope);
  return job ? `job ${decodeURIComponent(job[1]!)}` : scope;
}
