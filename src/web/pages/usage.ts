import type { UsageTotals } from "../../usage/ledger-contract.ts";
import { type Html, html } from "../html.ts";
import { definePage } from "../page.ts";
import { type ChartSegment, stackedBarChart } from "../svg-chart.ts";
import type { PeriodSpend, UsageDay, UsageSpend } from "../usage-deps.ts";

const DAYS = 30;

/** Dollars as people read them: cents from $1 up; below it up to four decimals (small calls cost fractions of a cent). */
export function usd(value: number): string {
  if (value > 0 && value < 0.0001) return "< $0.0001";
  if (value >= 1) return `$${value.toFixed(2)}`;
  return `$${value.toFixed(4).replace(/0{1,2}$/, "")}`;
}

const count = (n: number) => n.toLocaleString("en-US");
const calls = (n: number) => `${count(n)} ${n === 1 ? "call" : "calls"}`;
const tokensOf = (t: UsageTotals) => t.inputTokens + t.outputTokens;
const cost = (t: UsageTotals) => (t.costUsd === null ? "unknown" : usd(t.costUsd));

/** An axis label for token counts: 0, 250k, 1.5M. */
function compact(n: number): string {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(+n.toFixed(1));
}

/** "Today: $0.42 of the $5.00 daily budget (8 %)." and the month's, for the dashboard and the Usage page. */
export function spendLines(spend: UsageSpend): Html {
  const line = (period: string, limitKey: string, s: PeriodSpend) => {
    const figures = `${count(tokensOf(s.totals))} tokens, ${calls(s.totals.calls)}`;
    // The budget counts priced calls only (a missing price is never a guess); say so where it applies.
    const unpriced = s.unpriced ? " Some calls have no known price and count nothing." : "";
    if (s.limitUsd === undefined) {
      return html`<li>${period}: ${usd(s.spentUsd)} (${figures}); no ${limitKey} budget is set.${unpriced}</li>`;
    }
    const share = Math.floor((s.spentUsd / s.limitUsd) * 100);
    const level = share >= 100 ? "fail" : share >= 80 ? "warn" : "ok";
    return html`<li class="${level}">${period}: ${usd(s.spentUsd)} of the ${usd(s.limitUsd)} ${limitKey} budget (${share} %; ${figures}).${unpriced}</li>`;
  };
  const unset = spend.today.limitUsd === undefined && spend.month.limitUsd === undefined;
  return html`<ul>${line("Today", "daily", spend.today)}${line("This month", "monthly", spend.month)}</ul>${
    unset
      ? html`<p>Set one with <code>[fermix_core.budget] daily_usd</code> or <code>monthly_usd</code> in config.toml.</p>`
      : ""
  }`;
}

/**
 * What the agent cost, per day and provider for the last 30 days (the owner's time zone): two stacked bar charts
 * (money, tokens) drawn server-side as SVG, and the same numbers in a table for screen readers and copying.
 */
export const usagePage = definePage({
  path: "/usage",
  title: "Usage",
  async render(deps) {
    if (!deps.usage)
      return html`<p>The usage ledger is not available in this process; run <code>fermix usage</code>.</p>`;
    const [{ timezone, days, rows }, spend] = await Promise.all([deps.usage.daily(DAYS), deps.usage.spend()]);
    const intro = html`<p>Tokens and cost per day for the last ${DAYS} days, by provider, in ${timezone}. The same figures
in a terminal: <code>fermix usage --since 30d --by day</code>.</p><section><h2>Budget</h2>${spendLines(spend)}</section>`;
    const active = rows.filter((r) => r.calls > 0);
    if (!active.length) return html`${intro}<p>No model calls were recorded in the last ${DAYS} days.</p>`;
    return html`${intro}${charts(days, active)}<h2>By day and provider</h2>${table(active)}`;
  },
});

function charts(days: readonly string[], rows: readonly UsageDay[]): Html {
  const categories = [...new Set([...days, ...rows.map((r) => r.day)])].sort();
  const series = [...new Set(rows.map((r) => r.provider))].sort();
  const title = (r: UsageDay) =>
    `${r.day} · ${r.provider}: ${cost(r)}, ${count(tokensOf(r))} tokens, ${calls(r.calls)}`;
  const segments = (value: (r: UsageDay) => number): ChartSegment[] =>
    rows.map((r) => ({ category: r.day, series: r.provider, value: value(r), title: title(r) }));
  // Seven or so labels across the axis, the last always today's.
  const step = Math.ceil(categories.length / 6);
  const tick = (day: string, i: number) =>
    i === categories.length - 1 || (categories.length - 1 - i) % step === 0 ? day.slice(5) : undefined;
  const spent = segments((r) => r.costUsd ?? 0);
  const unpriced = rows.some((r) => r.costUsd === null);
  return html`<section><h2>Cost per day (USD)</h2>${
    spent.some((s) => s.value > 0)
      ? stackedBarChart({
          label: `Cost per day in US dollars, last ${categories.length} days, stacked by provider`,
          ...{ categories, series, segments: spent, axis: usd, tick },
        })
      : html`<p>Nothing was spent in money: the calls ran on a subscription plan, a local model or a model with no known price.</p>`
  }${
    unpriced
      ? html`<p class="warn">Some calls used a model with no known price: their cost shows as unknown below and is not drawn. Set one with <code>[fermix_core.pricing."provider/model"]</code>.</p>`
      : ""
  }</section>
<section><h2>Tokens per day</h2>${stackedBarChart({
    label: `Tokens per day (input plus output), last ${categories.length} days, stacked by provider`,
    ...{ categories, series, segments: segments(tokensOf), axis: compact, tick },
  })}</section>`;
}

function table(rows: readonly UsageDay[]): Html {
  const total = rows.reduce<UsageTotals>(
    (sum, r) => ({
      calls: sum.calls + r.calls,
      inputTokens: sum.inputTokens + r.inputTokens,
      cachedInputTokens: sum.cachedInputTokens + r.cachedInputTokens,
      outputTokens: sum.outputTokens + r.outputTokens,
      reasoningTokens: sum.reasoningTokens + r.reasoningTokens,
      costUsd: sum.costUsd === null || r.costUsd === null ? null : sum.costUsd + r.costUsd,
    }),
    { calls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: 0 },
  );
  const cells = (t: UsageTotals) =>
    html`<td>${count(t.calls)}</td><td>${count(t.inputTokens)}</td><td>${count(t.cachedInputTokens)}</td><td>${count(t.outputTokens)}</td><td>${count(t.reasoningTokens)}</td><td>${count(tokensOf(t))}</td><td>${cost(t)}</td>`;
  return html`<table class="usage"><caption>Model calls per day and provider; tokens as each provider reported them.</caption>
<thead><tr><th scope="col">Day</th><th scope="col">Provider</th><th scope="col">Calls</th><th scope="col">Input tokens</th><th scope="col">Cached input</th><th scope="col">Output tokens</th><th scope="col">Reasoning</th><th scope="col">Tokens</th><th scope="col">Cost</th></tr></thead>
<tbody>${[...rows].sort((a, b) => b.day.localeCompare(a.day) || a.provider.localeCompare(b.provider)).map((r) => html`<tr><td>${r.day}</td><td>${r.provider}</td>${cells(r)}</tr>`)}</tbody>
<tfoot><tr><th scope="row" colspan="2">Total</th>${cells(total)}</tr></tfoot></table>`;
}
