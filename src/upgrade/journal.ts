import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { removeQuietly } from "../fs/lock-files.ts";
import { isLockHeld } from "../fs/pid-lock.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { appendUpgradeRecord } from "./history.ts";

/**
 * What an upgrade in flight has done so far, written before each irreversible step so that a crash (power
 * loss, SIGKILL) between steps can be finished or undone the next time fermix starts.
 *
 * - `staged`: a download may exist in `staging`; the installed binary is untouched.
 * - `swapped`: the new binary may be in place (rename(2) is atomic: it is either old or new), `.previous`
 *   holds the old one, and the new daemon has not yet been seen healthy.
 */
export type UpgradeJournal = {
  phase: "staged" | "swapped";
  from: string;
  to: string;
  binary: string;
  staging: string;
  sha256: string | null;
  previous_sha256?: string;
  started_at: string;
};

export function writeJournal(file: string, journal: UpgradeJournal): void {
  writePrivateFileAtomically(file, `${JSON.stringify(journal)}\n`);
}

export function readJournal(file: string): UpgradeJournal | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as UpgradeJournal;
    return parsed.phase === "staged" || parsed.phase === "swapped" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function sha256Of(path: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return undefined;
  }
}

export type Recovery = { action: "none" } | { action: "cleaned" | "confirmed" | "rolled_back"; message: string };

/**
 * Finishes or undoes an upgrade that a crash interrupted. A daemon of the new version that got as far as
 * starting (`asDaemon` with `runningVersion`), or a running daemon reporting it (`daemonVersion`), confirms
 * the upgrade — that is what the health check was waiting for; otherwise an unconfirmed swap is rolled back
 * to `.previous`.
 */
export function recoverInterruptedUpgrade(
  paths: { journal: string; previous: string; history: string; lock: string },
  opts: { runningVersion: string; asDaemon: boolean; daemonVersion?: string; now?: () => number },
): Recovery {
  const journal = readJournal(paths.journal);
  if (!journal) return { action: "none" };
  // A daemon started by an upgrade still in flight (its restart step) must leave the journal to that upgrade.
  if (opts.asDaemon && isLockHeld(paths.lock)) return { action: "none" };
  const timestamp = new Date((opts.now ?? Date.now)()).toISOString();
  const record = (status: "interrupted" | "succeeded" | "rolled_back", reason: string) =>
    appendUpgradeRecord(paths.history, {
      from: journal.from,
      to: journal.to,
      timestamp,
      sha256: journal.sha256,
      status,
      reason,
    });
  removeQuietly(journal.staging);
  const installed = sha256Of(journal.binary);
  const swapped = journal.phase === "swapped" && journal.sha256 !== null && installed === journal.sha256;
  if (!swapped) {
    record("interrupted", `the upgrade to ${journal.to} stopped before the binary was replaced; nothing changed`);
    removeQuietly(paths.journal);
    return {
      action: "cleaned",
      message: `an interrupted upgrade to ${journal.to} was cleaned up; ${journal.from} is installed`,
    };
  }
  const confirmed = opts.asDaemon ? opts.runningVersion === journal.to : opts.daemonVersion === journal.to;
  if (confirmed) {
    record("succeeded", "confirmed by the new daemon answering after the upgrade was interrupted");
    removeQuietly(paths.journal);
    return { action: "confirmed", message: `the upgrade to ${journal.to} was confirmed at daemon start` };
  }
  if (
    !existsSync(paths.previous) ||
    (journal.previous_sha256 && sha256Of(paths.previous) !== journal.previous_sha256)
  ) {
    record("interrupted", `the upgrade to ${journal.to} was interrupted and ${paths.previous} is missing or changed`);
    removeQuietly(paths.journal);
    return {
      action: "cleaned",
      message: `an interrupted upgrade left ${journal.to} installed unconfirmed, and the previous binary is gone; run fermix doctor`,
    };
  }
  restorePrevious(paths.previous, journal.binary);
  record(
    "rolled_back",
    `the upgrade to ${journal.to} was interrupted before its health check; ${journal.from} restored`,
  );
  removeQuietly(paths.journal);
  return {
    action: "rolled_back",
    message: `an interrupted upgrade to ${journal.to} was rolled back; ${journal.from} is installed again`,
  };
}

/** Puts `.previous` back at `binary` atomically: copy beside the target, then rename(2) over it. */
export function restorePrevious(previous: string, binary: string): void {
  const temp = `${binary}.fermix-restore-${process.pid}`;
  copyFileSync(previous, temp);
  chmodSync(temp, 0o755);
  renameSync(temp, binary);
}
