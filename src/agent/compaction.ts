import type { ConversationKey, MessageStore } from "../memory/messages-contract.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route } from "../providers/routes.ts";
import type { Message } from "../providers/types.ts";
import { completeOnce } from "./complete.ts";
import { estimateTokens, messagesTokens, messageTokens } from "./token-estimate.ts";

export const DEFAULT_THRESHOLD = 0.85;
/** After compaction the recent turns that stay verbatim use at most this share of the window. */
const RAW_SHARE = 0.3;
const SUMMARY_SYSTEM = [
  "You compress a conversation between a user and their assistant into a summary the assistant will read",
  "instead of the original messages. Keep every fact, decision, preference, name, number, path and open",
  "task; drop pleasantries and repetition. Write plain prose and short lists, at most about 600 words.",
].join(" ");

export type CompactionDeps = {
  store: MessageStore;
  routes: Route[];
  router: RouterDeps;
  signal?: AbortSignal;
};

export type CompactionResult =
  | { compacted: false; reason: string }
  | { compacted: true; foldedMessages: number; summary: string };

export const BELOW_THRESHOLD: CompactionResult = { compacted: false, reason: "below the threshold" };

/** What a conversation's stored window weighs: its summary and the messages after it. */
export function conversationTokens(summary: string | undefined, messages: readonly Message[]): number {
  return estimateTokens(summary ?? "") + messagesTokens(messages);
}

/** Whether `used` tokens (system prompt and conversation) stay under `threshold` of the context window. */
export function belowThreshold(used: number, contextWindow: number, threshold?: number): boolean {
  return used < (threshold ?? DEFAULT_THRESHOLD) * contextWindow;
}

/**
 * Folds a conversation's older turns into a summary once it passes `threshold` of the model's context
 * window (or at once, when forced by /compact). Whole turns only — a tool call is never separated from
 * its result — and the newest turns stay verbatim. The folded messages stay in the database.
 */
export async function compactConversation(
  key: ConversationKey,
  opts: { systemTokens: number; threshold?: number; force?: boolean },
  deps: CompactionDeps,
): Promise<CompactionResult> {
  const window = deps.routes[0]?.descriptor.contextWindow ?? 0;
  const { summary, rows } = deps.store.window(key);
  const used =
    opts.systemTokens +
    conversationTokens(
      summary,
      rows.map((r) => r.message),
    );
  if (!opts.force && belowThreshold(used, window, opts.threshold)) return BELOW_THRESHOLD;

  // Keep the newest whole turns that fit the raw share (never all of them); everything before is folded.
  const turns = groupByTurn(rows);
  let keep = 0;
  let kept = 0;
  for (let i = turns.length - 1; i >= 1; i--) {
    const size = messagesTokens(turns[i]!.map((r) => r.message));
    if (kept + size > RAW_SHARE * window) break;
    kept += size;
    keep++;
  }
  const folded = turns.slice(0, turns.length - keep).flat();
  if (!folded.length) return { compacted: false, reason: "nothing old enough to fold" };

  const transcript = [summary ? `Summary so far:\n${summary}` : "", ...folded.map((r) => render(r.message))]
    .filter(Boolean)
    .join("\n\n");
  const result = await completeOnce({
    routes: deps.routes,
    router: deps.router,
    system: SUMMARY_SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text: `Summarise this conversation:\n\n${transcript}` }] }],
    signal: deps.signal,
  });
  if (!result.ok) return { compacted: false, reason: `the summary call failed: ${result.failure.message}` };
  if (!result.text.trim()) return { compacted: false, reason: "the summary came back empty" };
  deps.store.saveSummary(key, folded.at(-1)!.id, result.text.trim());
  return { compacted: true, foldedMessages: folded.length, summary: result.text.trim() };
}

function groupByTurn<T extends { turnId: string }>(rows: T[]): T[][] {
  const turns: T[][] = [];
  for (const row of rows) {
    const last = turns.at(-1);
    if (last && last[0]!.turnId === row.turnId) last.push(row);
    else turns.push([row]);
  }
  return turns;
}

function render(m: Message): string {
  if (m.role === "tool") return `[${m.toolName} returned] ${m.content.slice(0, 2000)}`;
  const text = m.content
    .map((p) =>
      p.type === "text" ? p.text : p.type === "tool_call" ? `[called ${p.name} ${JSON.stringify(p.arguments)}]` : "",
    )
    .filter(Boolean)
    .join("\n");
  return `${m.role === "user" ? "User" : "Assistant"}: ${text}`;
}

/**
 * Inside one long tool loop: older tool results shrink to a digest in what is sent, while the last few
 * stay whole. Only the request is changed — the turn still commits the full results.
 */
export function digestOldToolResults(messages: Message[], budgetTokens: number, keepRaw = 3): Message[] {
  if (messagesTokens(messages) <= budgetTokens) return messages;
  const toolIndexes = messages.flatMap((m, i) => (m.role === "tool" ? [i] : []));
  const digestable = new Set(toolIndexes.slice(0, Math.max(0, toolIndexes.length - keepRaw)));
  return messages.map((m, i) => {
    if (m.role !== "tool" || !digestable.has(i) || messageTokens(m) < 200) return m;
    return {
      ...m,
      content: `${m.content.slice(0, 600)}\n[digested: ${m.content.length} characters in all; call the tool again if the rest is needed]`,
    };
  });
}
