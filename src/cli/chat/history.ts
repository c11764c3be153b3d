import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const HISTORY_LINES = 1000;

/**
 * `fermix chat`'s history across runs: one entry a line, newest last, the last 1000 kept. A multi-line message
 * is one entry, its newlines escaped (`\n` as `\\n`, a backslash doubled) so the file stays line-oriented.
 * 0600: what the owner typed may be private.
 */
export function createHistory(file: string) {
  return {
    /** Newest first, as node:readline's `history` option takes it. */
    load(): string[] {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        return [];
      }
      const lines = text.split("\n").filter((line) => line.length > 0);
      return lines.slice(-HISTORY_LINES).map(fromLine).reverse();
    },
    /** Rewrites the file from `entries` (newest first); a failure to write never ends the chat. */
    save(entries: readonly string[]): void {
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const kept = entries.slice(0, HISTORY_LINES).map(toLine).reverse();
        writeFileSync(file, kept.length ? `${kept.join("\n")}\n` : "", { mode: 0o600 });
        chmodSync(file, 0o600);
      } catch {}
    },
  };
}

function toLine(entry: string): string {
  return entry.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function fromLine(line: string): string {
  return line.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}
