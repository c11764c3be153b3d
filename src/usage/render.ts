import type { UsageSummary, UsageTotals } from "./ledger-contract.ts";

/** A cost for people: dollars and cents, finer below a cent; "unknown" when a call in it had no price. */
export function formatUsd(cost: number | null): string {
  if (cost === null) return "unknown";
  if (cost === 0) return "$0.00";
  // Below a dollar a cent is too coarse: one call often costs a fraction of one.
  if (cost < 1) return `$${cost.toFixed(4)}`;
  return `$${cost.toFixed(2)}`;
}

export function formatTokens(n: number): string {
  return n.toLocaleString("en-US");
}

/** One line of totals: "12,400 in (3,000 cached) · 800 out · 3 calls · $0.0172". */
export function totalsLine(t: UsageTotals): string {
  const cached = t.cachedInputTokens ? ` (${formatTokens(t.cachedInputTokens)} cached)` : "";
  const reasoning = t.reasoningTokens ? ` (${formatTokens(t.reasoningTokens)} reasoning)` : "";
  const calls = `${t.calls} call${t.calls === 1 ? "" : "s"}`;
  return `${formatTokens(t.inputTokens)} in${cached} · ${formatTokens(t.outputTokens)} out${reasoning} · ${calls} · ${formatUsd(t.costUsd)}`;
}

const HEADERS = ["", "calls", "input", "cached", "output", "reasoning", "cost"];

/** `fermix usage`'s table: one row per group, then the total; numbers right-aligned. */
export function usageTable(summary: UsageSummary, groupTitle: string): string {
  const cells = (group: string, t: UsageTotals) => [
    group,
    String(t.calls),
    formatTokens(t.inputTokens),
    formatTokens(t.cachedInputTokens),
    formatTokens(t.outputTokens),
    formatTokens(t.reasoningTokens),
    formatUsd(t.costUsd),
  ];
  const rows = [
    [groupTitle, ...HEADERS.slice(1)],
    ...summary.rows.map((r) => cells(r.group || "(none)", r)),
    cells("total", summary.total),
  ];
  const widths = HEADERS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${rows.map(line).join("\n")}\n`;
}

/** The `--json` shape of a group's totals: snake_case, cost in USD (null: unknown). */
export function totalsJson(t: UsageTotals): Record<string, number | null> {
  return {
    input_tokens: t.inputTokens,
    cached_input_tokens: t.cachedInputTokens,
    output_tokens: t.outputTokens,
    reasoning_tokens: t.reasoningTokens,
    calls: t.calls,
    cost_usd: t.costUsd,
  };
}
