import { openDatabase } from "../../src/memory/db.ts";
import { createUsageLedger } from "../../src/usage/ledger.ts";
import type { LedgerEntry } from "../../src/usage/ledger-contract.ts";

/** One model call as the ledger keeps it; what a test leaves out is a plain main-turn call on the CLI. */
export type SeedCall = Pick<LedgerEntry, "at" | "provider" | "model" | "inputTokens" | "outputTokens" | "costMicros"> &
  Partial<LedgerEntry>;

/**
 * Ledger rows written into memory.db through the ledger's own write API (migrations run as the daemon runs them),
 * so the pages read exactly what a turn would have left behind. The file is closed again before a daemon opens it.
 */
export function seedUsage(dbFile: string, calls: readonly SeedCall[]): void {
  const db = openDatabase(dbFile);
  try {
    const ledger = createUsageLedger(db);
    for (const call of calls) {
      ledger.recordCall({
        sessionId: "cli:seed",
        channel: "cli",
        kind: "main",
        cachedInputTokens: 0,
        reasoningTokens: 0,
        billing: "api",
        ...call,
      });
    }
  } finally {
    db.close();
  }
}
