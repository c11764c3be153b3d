import { fstatSync } from "node:fs";
import type { Env } from "../config/env.ts";

/**
 * Whether fd 2 is the journal's stream. JOURNAL_STREAM is only believed when it names the descriptor's own device
 * and inode, as systemd.exec(5) advises: a shell started from a service inherits the variable while its stderr
 * is a terminal or a file.
 */
export function stderrIsJournal(env: Env, fd = 2): boolean {
  if (!env.JOURNAL_STREAM) return false;
  try {
    const st = fstatSync(fd, { bigint: true });
    return env.JOURNAL_STREAM === `${st.dev}:${st.ino}`;
  } catch {
    return false;
  }
}
