import { naiveOf } from "../jobs/zoned-time.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import type {
  LedgerEntry,
  UsageGroupBy,
  UsageLedger,
  UsageQuery,
  UsageRecorder,
  UsageSummary,
  UsageTotals,
} from "./ledger-contract.ts";

// Every zone's offset from UTC is a whole number of quarter hours, so sums per quarter hour (done by SQLite) cut
// into the owner's days exactly (done here, where the IANA zone is known).
const QUARTER_HOUR_MS = 900_000;
const DAY_MS = 86_400_000;

/** The SQL expression each non-day grouping sums by. */
const GROUP_COLUMN: Record<Exclude<UsageGroupBy, "day">, string> = {
  provider: "provider",
  model: "provider || '/' || model",
  session: "session_id",
  channel: "channel",
  job: "COALESCE(job_id, '')",
};

const SUMS = `COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(cached_input_tokens) AS cached,
  SUM(output_tokens) AS output, SUM(reasoning_tokens) AS reasoning, SUM(cost_micros) AS cost,
  COUNT(*) - COUNT(cost_micros) AS unpriced`;

type SumRow = {
  calls: number;
  input: number | null;
  cached: number | null;
  output: number | null;
  reasoning: number | null;
  cost: number | null;
  unpriced: number;
};

/** The usage ledger on memory.db's `usage_ledger` table (migration 9). */
export function createUsageLedger(db: SqlDatabase): UsageLedger & UsageRecorder {
  const insert = db.query(
    `INSERT INTO usage_ledger (at, session_id, channel, job_id, run_id, provider, model, kind, input_tokens,
       cached_input_tokens, output_tokens, reasoning_tokens, cost_micros, billing, price_input_per_mtok,
       price_cached_input_per_mtok, price_output_per_mtok)
     VALUES ($at, $session_id, $channel, $job_id, $run_id, $provider, $model, $kind, $input, $cached, $output,
       $reasoning, $cost, $billing, $price_input, $price_cached, $price_output)`,
  );
  const filter = (q: UsageQuery) => {
    const where = ["at >= $since", "at < $until"];
    if (q.sessionId !== undefined) where.push("session_id = $session");
    const params: Record<string, string | number> = { since: q.since ?? 0, until: q.until ?? Number.MAX_SAFE_INTEGER };
    if (q.sessionId !== undefined) params.session = q.sessionId;
    return { where: where.join(" AND "), params };
  };

  return {
    recordCall(entry: LedgerEntry): void {
      insert.run({
        at: entry.at,
        session_id: entry.sessionId,
        channel: entry.channel,
        job_id: entry.jobId ?? null,
        run_id: entry.runId ?? null,
        provider: entry.provider,
        model: entry.model,
        kind: entry.kind,
        input: entry.inputTokens,
        cached: entry.cachedInputTokens,
        output: entry.outputTokens,
        reasoning: entry.reasoningTokens,
        cost: entry.costMicros,
        billing: entry.billing,
        price_input: entry.price?.inputPerMtok ?? null,
        price_cached: entry.price?.cachedInputPerMtok ?? null,
        price_output: entry.price?.outputPerMtok ?? null,
      });
    },

    summarize(query: UsageQuery): UsageSummary {
      const { where, params } = filter(query);
      const total = totalsOf(db.query(`SELECT ${SUMS} FROM usage_ledger WHERE ${where}`).get(params) as SumRow);
      if (!query.by) return { rows: [], total };
      if (query.by === "day") {
        const zone = query.timezone ?? "UTC";
        const buckets = db
          .query(`SELECT at / ${QUARTER_HOUR_MS} AS bucket, ${SUMS} FROM usage_ledger WHERE ${where} GROUP BY bucket`)
          .all(params) as Array<SumRow & { bucket: number }>;
        const days = mergeInto(buckets, (b) => dayOf(b.bucket * QUARTER_HOUR_MS, zone));
        return { rows: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([group, t]) => ({ group, ...t })), total };
      }
      const rows = db
        .query(
          `SELECT ${GROUP_COLUMN[query.by]} AS grp, ${SUMS} FROM usage_ledger WHERE ${where} GROUP BY grp ORDER BY grp`,
        )
        .all(params) as Array<SumRow & { grp: string }>;
      return { rows: rows.map((r) => ({ group: r.grp, ...totalsOf(r) })), total };
    },

    dailyByProvider(days: number, timezone: string, now: number) {
      // From local midnight `days - 1` days before today: naive arithmetic, then one check per bucket below.
      const today = Math.floor(naiveOf(now, timezone) / DAY_MS) * DAY_MS;
      const first = new Date(today - (days - 1) * DAY_MS).toISOString().slice(0, 10);
      // Two days of slack before the first local midnight covers any zone's offset; buckets before it drop out.
      const buckets = db
        .query(
          `SELECT provider, at / ${QUARTER_HOUR_MS} AS bucket, ${SUMS} FROM usage_ledger
           WHERE at >= $since AND at <= $now GROUP BY provider, bucket`,
        )
        .all({ since: today - (days + 1) * DAY_MS, now }) as Array<SumRow & { bucket: number; provider: string }>;
      const kept = buckets.filter((b) => dayOf(b.bucket * QUARTER_HOUR_MS, timezone) >= first);
      const merged = mergeInto(kept, (b) => `${dayOf(b.bucket * QUARTER_HOUR_MS, timezone)} ${b.provider}`);
      return [...merged]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, t]) => {
          const [day, provider] = [key.slice(0, 10), key.slice(11)];
          return { day, provider, ...t };
        });
    },
  };
}

function dayOf(instant: number, timezone: string): string {
  return new Date(naiveOf(instant, timezone)).toISOString().slice(0, 10);
}

function mergeInto<T extends SumRow>(rows: T[], keyOf: (row: T) => string): Map<string, UsageTotals> {
  const merged = new Map<string, UsageTotals>();
  for (const row of rows) {
    const key = keyOf(row);
    const t = totalsOf(row);
    const before = merged.get(key);
    merged.set(key, before ? addTotals(before, t) : t);
  }
  return merged;
}

export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    costUsd:
      a.costUsd === null || b.costUsd === null ? null : microsToUsd(usdToMicros(a.costUsd) + usdToMicros(b.costUsd)),
  };
}

function totalsOf(r: SumRow): UsageTotals {
  return {
    calls: r.calls,
    inputTokens: r.input ?? 0,
    cachedInputTokens: r.cached ?? 0,
    outputTokens: r.output ?? 0,
    reasoningTokens: r.reasoning ?? 0,
    // One call with no known price makes the group's cost unknown: a partial sum would read as the whole.
    costUsd: r.unpriced > 0 ? null : microsToUsd(r.cost ?? 0),
  };
}

function microsToUsd(micros: number): number {
  return micros / 1_000_000;
}

function usdToMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}
