import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

export type UpgradeStatus = "succeeded" | "refused" | "rolled_back" | "failed" | "interrupted";

/** One line of `$FERMIX_HOME/upgrades.jsonl`, per attempt (the reference's fields, plus why when not succeeded). */
export type UpgradeRecord = {
  from: string;
  to: string;
  timestamp: string;
  sha256: string | null;
  status: UpgradeStatus;
  reason?: string;
};

export function appendUpgradeRecord(file: string, record: UpgradeRecord): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}
