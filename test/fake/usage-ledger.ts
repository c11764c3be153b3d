import type { LedgerEntry, UsageLedger, UsageQuery, UsageTotals } from "../../src/usage/ledger-contract.ts";

/**
 * An in-memory UsageLedger over LedgerEntry rows, for the readers' unit tests (budgets): the contract's sums, with
 * `costUsd` null when any call of a group has no price.
 */
export function fakeUsageLedger(
  entries: LedgerEntry[] = [],
): Pick<UsageLedger, "summarize" | "dailyByProvider"> & { add(entry: Partial<LedgerEntry>): void } {
  const totals = (rows: LedgerEntry[]): UsageTotals => ({
    calls: rows.length,
    inputTokens: sum(rows, (r) => r.inputTokens),
    cachedInputTokens: sum(rows, (r) => r.cachedInputTokens),
    outputTokens: sum(rows, (r) => r.outputTokens),
    reasoningTokens: sum(rows, (r) => r.reasoningTokens),
    costUsd: rows.some((r) => r.costMicros === null) ? null : sum(rows, (r) => r.costMicros ?? 0) / 1e6,
  });
  const select = (q: UsageQuery) =>
    entries.filter(
      (e) =>
        (q.since === undefined || e.at >= q.since) &&
        (q.until === undefined || e.at <= q.until) &&
        (q.sessionId === undefined || e.sessionId === q.sessionId),
    );
  const groupOf = (e: LedgerEntry, by: NonNullable<UsageQuery["by"]>): string =>
    by === "provider"
      ? e.provider
      : by === "model"
        ? `${e.provider}/${e.model}`
        : by === "session"
          ? e.sessionId
          : by === "channel"
            ? e.channel
            : by === "job"
              ? (e.jobId ?? "")
              : new Date(e.at).toISOString().slice(0, 10);
  const add = (entry: Partial<LedgerEntry>) => {
    entries.push({
      at: 0,
      sessionId: "s",
      channel: "cli",
      provider: "openai",
      model: "gpt-5.5",
      kind: "main",
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      costMicros: 0,
      billing: "api",
      ...entry,
    });
  };
  return {
    add,
    summarize(q) {
      const rows = select(q);
      const by = q.by;
      if (!by) return { rows: [], total: totals(rows) };
      const groups = new Map<string, LedgerEntry[]>();
      for (const r of rows) groups.set(groupOf(r, by), [...(groups.get(groupOf(r, by)) ?? []), r]);
      return { rows: [...groups].map(([group, g]) => ({ group, ...totals(g) })), total: totals(rows) };
    },
    dailyByProvider: () => [],
  };
}

function sum(rows: LedgerEntry[], pick: (r: LedgerEntry) => number): number {
  return rows.reduce((n, r) => n + pick(r), 0);
}
