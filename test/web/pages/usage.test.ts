import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../../src/config/schema.ts";
import { openDatabase } from "../../../src/memory/db.ts";
import { createUsageLedger } from "../../../src/usage/ledger.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { dashboardPage } from "../../../src/web/pages/dashboard.ts";
import { usagePage } from "../../../src/web/pages/usage.ts";
import { createUsageWeb } from "../../../src/web/usage-deps.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { type SeedCall, seedUsage } from "../_usage-seed.ts";
import { ctx } from "./_cards-fixture.ts";

/*
 * The Usage page and the dashboard's spend line, rendered on the real ledger over a temp memory.db in Europe/Paris
 * (UTC+1 in December), at a fixed "now": what was drawn, how tall, and the table's numbers.
 */

const defer = cleanupAfterEach();
const NOW = Date.UTC(2026, 11, 2, 12, 0); // 2026-12-02 13:00 in Paris
const utc = (day: number, hour: number, minute = 0) => Date.UTC(2026, 10, day, hour, minute); // November…
const dec = (day: number, hour: number) => Date.UTC(2026, 11, day, hour);

const CALLS: SeedCall[] = [
  // 2026-12-01 in Paris: openai twice ($0.04), anthropic once ($0.01), and an unpriced xai call made at 00:30 local.
  { at: dec(1, 10), provider: "openai", model: "gpt-5.5", inputTokens: 1000, outputTokens: 500, costMicros: 20_000 },
  {
    ...{ at: dec(1, 11), provider: "openai", model: "gpt-5.5", inputTokens: 2000, outputTokens: 0, costMicros: 20_000 },
    ...{ cachedInputTokens: 500, reasoningTokens: 0 },
  },
  { at: dec(1, 12), provider: "anthropic", model: "claude-x", inputTokens: 100, outputTokens: 100, costMicros: 10_000 },
  {
    at: utc(30, 23, 30),
    provider: "xai",
    model: "grok-unpriced",
    inputTokens: 300,
    outputTokens: 30,
    costMicros: null,
  },
  // 2026-12-02: openai $0.08, and a local model that costs nothing.
  { at: dec(2, 9), provider: "openai", model: "gpt-5.5", inputTokens: 400, outputTokens: 100, costMicros: 80_000 },
  { at: dec(2, 10), provider: "ollama", model: "llama3", inputTokens: 1000, outputTokens: 1000, costMicros: 0 },
  // Forty days ago: outside the chart, and outside this month's budget.
  { at: NOW - 40 * 86_400_000, provider: "openai", model: "gpt-5.5", inputTokens: 9, outputTokens: 9, costMicros: 9 },
];

const CONFIG = {
  fermix_core: { personalization: { timezone: "Europe/Paris" }, budget: { daily_usd: 0.1, monthly_usd: 5 } },
} as Config;

function world(calls: readonly SeedCall[], config: Config = CONFIG) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true });
  const file = join(h.home, "memory.db");
  seedUsage(file, calls);
  const db = openDatabase(file);
  defer(() => db.close());
  const usage = createUsageWeb({
    ledger: async () => createUsageLedger(db),
    config: async () => config,
    now: () => NOW,
  });
  return { usage, deps: { usage } as unknown as WebDeps };
}

type Rect = { x: number; y: number; width: number; height: number; fill: string; day: string; provider: string };

/** The charts by their aria-label, each with its bars as drawn. */
function charts(page: string): Map<string, Rect[]> {
  const out = new Map<string, Rect[]>();
  for (const [, label, body] of page.matchAll(/<svg [^>]*aria-label="([^"]+)"[^>]*>([\s\S]*?)<\/svg>/g)) {
    const rects = [...body!.matchAll(/<rect ([^>]*)>/g)].map(([, attrs]) => {
      const a = Object.fromEntries([...attrs!.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k, v]));
      const n = (key: string) => Number(a[key]);
      return {
        x: n("x"),
        y: n("y"),
        width: n("width"),
        height: n("height"),
        fill: a.fill!,
        day: a["data-category"]!,
        provider: a["data-series"]!,
      };
    });
    out.set(label!, rects);
  }
  return out;
}

const tableRows = (page: string) =>
  [...(/<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? "").matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row!.matchAll(/<td>([^<]*)<\/td>/g)].map(([, cell]) => cell),
  );

describe("Usage page", () => {
  test("cost chart: one <rect> per provider and day with spend, heights proportional, stacked on one axis", async () => {
    const page = (await usagePage.render(world(CALLS).deps, ctx())).html;
    const all = charts(page);
    expect(all.size).toBe(2);
    const cost = [...all].find(([label]) => label.startsWith("Cost per day"))![1];
    // Only spend is drawn: the local model's $0 and the unpriced xai call have no cost bar.
    expect(cost.map((r) => `${r.day} ${r.provider}`).sort()).toEqual([
      "2026-12-01 anthropic",
      "2026-12-01 openai",
      "2026-12-02 openai",
    ]);
    const bar = (day: string, provider: string) => cost.find((r) => r.day === day && r.provider === provider)!;
    const [anthropic1, openai1, openai2] = [
      bar("2026-12-01", "anthropic"),
      bar("2026-12-01", "openai"),
      bar("2026-12-02", "openai"),
    ];
    // $0.01 : $0.04 : $0.08, on an axis up to $0.10 over 200 px.
    expect([anthropic1.height, openai1.height, openai2.height]).toEqual([20, 80, 160]);
    expect(openai2.height / anthropic1.height).toBeCloseTo(0.08 / 0.01, 6);
    // Stacked: anthropic (first in the legend) at the bottom, openai on top of it, both in one column.
    expect(openai1.y + openai1.height).toBeCloseTo(anthropic1.y, 6);
    expect(anthropic1.y + anthropic1.height).toBe(openai2.y + openai2.height);
    expect(openai1.x).toBe(anthropic1.x);
    expect(openai2.x).toBeGreaterThan(openai1.x);
    expect(openai1.fill).toBe(openai2.fill);
    expect(openai1.fill).not.toBe(anthropic1.fill);
    // The rightmost slot is today (30 slots): the Dec 2 column is the last one.
    expect(Math.max(...cost.map((r) => r.x))).toBe(openai2.x);
  });

  test("tokens chart, hover titles, legend, axis labels; no style attribute anywhere; role=img with a name", async () => {
    const page = (await usagePage.render(world(CALLS).deps, ctx())).html;
    const tokens = [...charts(page)].find(([label]) => label.startsWith("Tokens per day"))![1];
    expect(tokens.map((r) => `${r.day} ${r.provider} ${r.height}`).sort()).toEqual([
      // Dec 1: 3500 + 200 + 330 tokens; Dec 2: 500 + 2000. The axis tops at 5k over 200 px.
      "2026-12-01 anthropic 8",
      "2026-12-01 openai 140",
      "2026-12-01 xai 13.2",
      "2026-12-02 ollama 80",
      "2026-12-02 openai 20",
    ]);
    expect(page).not.toMatch(/\sstyle=/i);
    expect(page).not.toContain("<script");
    expect(page.match(/<svg [^>]*role="img"/g)).toHaveLength(2);
    expect(page).toContain("<title>2026-12-01 · openai: $0.04, 3,500 tokens, 2 calls</title>");
    expect(page).toContain("<title>2026-12-01 · xai: unknown, 330 tokens, 1 call</title>");
    for (const provider of ["anthropic", "ollama", "openai", "xai"]) {
      expect(page).toMatch(new RegExp(`<circle [^>]*/><text [^>]*>${provider}</text>`));
    }
    expect(page).toContain(">12-02</text>"); // today's x label
    expect(page).toContain(">$0.10</text>"); // the cost axis's top
    expect(page).toContain(">5k</text>"); // the tokens axis's top
    expect(page).toContain("Some calls used a model with no known price");
  });

  test("the table under the charts: one row per provider and day, newest first; cost unknown when a price is", async () => {
    const page = (await usagePage.render(world(CALLS).deps, ctx())).html;
    // day, provider, calls, input, cached input, output, reasoning, tokens, cost
    expect(tableRows(page)).toEqual([
      ["2026-12-02", "ollama", "1", "1,000", "0", "1,000", "0", "2,000", "$0.00"],
      ["2026-12-02", "openai", "1", "400", "0", "100", "0", "500", "$0.08"],
      ["2026-12-01", "anthropic", "1", "100", "0", "100", "0", "200", "$0.01"],
      ["2026-12-01", "openai", "2", "3,000", "500", "500", "0", "3,500", "$0.04"],
      ["2026-12-01", "xai", "1", "300", "0", "30", "0", "330", "unknown"],
    ]);
    const foot = /<tfoot>([\s\S]*?)<\/tfoot>/.exec(page)![1]!;
    expect(foot).toContain(
      "<td>6</td><td>4,800</td><td>500</td><td>1,730</td><td>0</td><td>6,530</td><td>unknown</td>",
    );
    expect(page).toContain('<th scope="col">Cost</th>');
    expect(page).toContain("in Europe/Paris");
  });

  test("the budget: today's and this month's spend against [fermix_core.budget], in the owner's day", async () => {
    const page = (await usagePage.render(world(CALLS).deps, ctx())).html;
    // Today (Paris) holds the $0.08 openai call and the free local one: 80 % of $0.10.
    expect(page).toContain(
      '<li class="warn">Today: $0.08 of the $0.10 daily budget (80 %; 2,500 tokens, 2 calls).</li>',
    );
    // The month (from Dec 1 00:00 Paris) holds the unpriced xai call made at 23:30 UTC on Nov 30: counted as nothing.
    expect(page).toContain(
      '<li class="ok">This month: $0.13 of the $5.00 monthly budget (2 %; 6,530 tokens, 6 calls). Some calls have no known price and count nothing.</li>',
    );
  });

  test("no calls in 30 days: a sentence, no empty chart", async () => {
    const old = CALLS.filter((c) => c.at < NOW - 31 * 86_400_000);
    const page = (await usagePage.render(world(old, {} as Config).deps, ctx())).html;
    expect(page).toContain("No model calls were recorded in the last 30 days.");
    expect(page).not.toContain("<svg");
    expect(page).not.toContain("<table");
    expect(page).toContain("no daily budget is set");
    expect(page).toContain("<code>[fermix_core.budget] daily_usd</code>");
  });
});

describe("dashboard spend line", () => {
  const base = {
    status: async () => {
      throw new Error("no daemon");
    },
    doctor: async () => ({ ok: true, full: false, version: "t", counts: { ok: 0, warn: 0, fail: 0 }, rows: [] }),
    recentRuns: async () => [],
  };

  test("today's spend against the daily budget, with a link to the Usage page", async () => {
    const { usage } = world(CALLS);
    const page = (await dashboardPage.render({ ...base, usage } as unknown as WebDeps, ctx())).html;
    expect(page).toContain("<h2>Spend</h2>");
    expect(page).toContain("Today: $0.08 of the $0.10 daily budget (80 %");
    expect(page).toContain('<a href="/usage">');
  });

  test("a ledger that fails costs one line, not the page; no ledger at all, no section", async () => {
    const broken = { spend: async () => Promise.reject(new Error("disk I/O error")) };
    const failed = (await dashboardPage.render({ ...base, usage: broken } as unknown as WebDeps, ctx())).html;
    expect(failed).toContain("Unknown: the usage ledger could not be read.");
    expect(failed).toContain("Recent job runs");
    const none = (await dashboardPage.render(base as unknown as WebDeps, ctx())).html;
    expect(none).not.toContain("<h2>Spend</h2>");
  });
});
