import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { BudgetPeriod } from "./budget-period.ts";

/**
 * Which 80 % notices were given, per budget: the label of the period it was given in ("2026-05-03", "2026-05").
 * Kept in a small file under FERMIX_HOME so a restarted daemon, or the next one-shot `fermix ask`, does not give
 * the same notice again; a new period's label makes it due once more.
 */
export type NoticeMemory = {
  given(period: BudgetPeriod, label: string): boolean;
  remember(period: BudgetPeriod, label: string): void;
};

export function createNoticeMemory(file: string): NoticeMemory {
  const read = (): Partial<Record<BudgetPeriod, string>> => {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
      return parsed && typeof parsed === "object" ? (parsed as Partial<Record<BudgetPeriod, string>>) : {};
    } catch {
      // Absent or unreadable: no notice was given yet (at worst one is repeated, never lost).
      return {};
    }
  };
  return {
    given: (period, label) => read()[period] === label,
    remember(period, label) {
      const next = { ...read(), [period]: label };
      // Temp file + rename: a crash mid-write leaves the previous record, never half a file.
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(next)}\n`, { mode: 0o600 });
      renameSync(temp, file);
    },
  };
}

/** For tests and processes with no FERMIX_HOME to write: notices remembered in memory. */
export function inMemoryNotices(): NoticeMemory {
  const labels = new Map<BudgetPeriod, string>();
  return { given: (p, l) => labels.get(p) === l, remember: (p, l) => void labels.set(p, l) };
}
