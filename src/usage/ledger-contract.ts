/*
 * The usage ledger (issue 30): one row per model call in memory.db, what it cost, and the sums `fermix usage`,
 * `/usage`, the budgets and the setup page's Usage page read. This file is the contract the readers build on;
 * usage/ledger.ts implements it.
 */

/** Which part of fermix made the call. */
export type RouteKind = "main" | "subagent" | "job" | "compaction" | "memory_review" | "soul_draft";

/** One model call as the ledger keeps it. Tokens are the wire's own counts; cost in micro-dollars. */
export type LedgerEntry = {
  at: number;
  sessionId: string;
  /** The conversation's channel ("cli", "telegram", …); "job" runs carry the job's. */
  channel: string;
  jobId?: string;
  runId?: string;
  provider: string;
  model: string;
  kind: RouteKind;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Micro-dollars; null when the model has no known price (never a guess). */
  costMicros: number | null;
  /** "plan" when the call ran on a subscription sign-in (cost 0); "api" otherwise. */
  billing: "api" | "plan";
  /** The price the cost was computed with (USD per million tokens); absent when there was none. */
  price?: { inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number };
};

/** Sums over some calls: what every reader shows. `costUsd` is null when any call in the group has no price. */
export type UsageTotals = {
  calls: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd: number | null;
};

export type UsageGroupBy = "day" | "provider" | "model" | "session" | "channel" | "job";

export type UsageQuery = {
  /** Epoch ms, inclusive; absent: everything. */
  since?: number;
  until?: number;
  by?: UsageGroupBy;
  /** Only this conversation's / session's calls. */
  sessionId?: string;
  /** IANA zone the `day` groups are cut in (the owner's). */
  timezone?: string;
};

export type UsageSummary = { rows: Array<UsageTotals & { group: string }>; total: UsageTotals };

export interface UsageLedger {
  summarize(query: UsageQuery): UsageSummary;
  /** Per day (owner's zone) and provider, for the setup page's chart: the last `days` days, oldest first. */
  dailyByProvider(days: number, timezone: string, now: number): Array<{ day: string; provider: string } & UsageTotals>;
}

/** The write side, all the meter (usage/meter.ts) needs: one row per completed model call. */
export interface UsageRecorder {
  /** Appends one call's row in its own short transaction: a call that happened cost money, whatever became of its turn. */
  recordCall(entry: LedgerEntry): void;
}
