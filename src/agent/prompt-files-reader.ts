import { readFileSync, statSync } from "node:fs";
import type { FermixPaths } from "../config/paths.ts";
import type { PromptFiles } from "./prompt-files.ts";

/**
 * How long after a file's last change its stat cannot yet vouch for its content. Filesystems stamp times from a
 * coarse clock, so a second write within one grain can leave size and times as they were: a file changed this recently
 * is read again every turn until it is older (git's "racily clean"). The grain is a kernel tick (≤ 10 ms) where times
 * carry milliseconds; where they come in whole seconds (FAT, ext3, HFS+), it is up to two seconds.
 */
export const RACY_MS = { fine: 100, whole: 3000 } as const;

type Known = { signature: string; text: string };
/** A file as its stat describes it; `changedAt` is its latest time stamp (0 for a file that is not there). */
export type Stamp = { signature: string; changedAt: number };

const WHICH: readonly (keyof PromptFiles)[] = ["identity", "soul", "guidance", "user", "memory"];

/**
 * The owner's prompt files as they are now, for a daemon that builds a prompt every turn (issue 31): a file is read
 * again only when its stat (inode, size, change and modification times) moved, or while it is racily new. Five
 * stats cost about a quarter of five reads here. The stat comes before the read, so a write between the two leaves
 * a signature that no longer matches, and the next turn reads again. app.ts gives it to the daemon only: a one-shot
 * ask reads each file once, with no stat first.
 */
export function createPromptFilesReader(
  paths: FermixPaths,
  deps: { now?: () => number; stamp?: (file: string) => Stamp | undefined } = {},
): () => PromptFiles {
  const { now = Date.now, stamp: stampOf = statStamp } = deps;
  const known = new Map<keyof PromptFiles, Known>();
  const read = (which: keyof PromptFiles): string => {
    const file = paths.promptFiles[which];
    const stamp = stampOf(file);
    const hit = known.get(which);
    if (stamp && hit?.signature === stamp.signature) return hit.text;
    const text = readTrimmed(file);
    if (stamp && now() - stamp.changedAt > racyFor(stamp.changedAt))
      known.set(which, { signature: stamp.signature, text });
    else known.delete(which);
    return text;
  };
  return () => {
    const files = {} as PromptFiles;
    for (const which of WHICH) files[which] = read(which);
    return files;
  };
}

/** `undefined` when the file cannot be looked at (a permission denied): it is then read, never remembered. */
function statStamp(file: string): Stamp | undefined {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    if (!stats) return { signature: "absent", changedAt: 0 };
    return {
      signature: `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`,
      changedAt: Math.max(stats.mtimeMs, stats.ctimeMs),
    };
  } catch {
    return undefined;
  }
}

/**
 * A time stamp in whole seconds says the filesystem keeps no finer ones (or, one time in a thousand, it happened
 * so).
 */
function racyFor(changedAt: number): number {
  return changedAt % 1000 === 0 ? RACY_MS.whole : RACY_MS.fine;
}

/** As readPromptFiles reads one: trimmed, and "" for a file that is missing or unreadable. */
function readTrimmed(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}
