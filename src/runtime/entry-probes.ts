import type { DescriptorStat } from "./files.ts";

/**
 * What src/main.ts asks of the runtime before any chunk of the binary loads on demand (issue 31). It imports nothing
 * at run time and only the entry's own modules import it (main.ts, cli/ask-early.ts, cli/help-fast.ts), so in the
 * binary it is part of the entry's chunk; host.ts and files.ts answer the same questions for everything else, a
 * chunk away.
 */

/** host.ts's `onBun`. */
export function entryOnBun(): boolean {
  return typeof Bun !== "undefined";
}

/** Stdin's and stdout's stats, as the entry asked for them. */
export type StdioStats = readonly [Promise<DescriptorStat>, Promise<DescriptorStat>];

/**
 * Stdin's and stdout's stats, asked of Bun's thread pool now: its first answer takes ~4 ms (its threads start), which
 * then overlaps the entry's other work. A closed descriptor's failure is its reader's (cli/stdio-probe.ts: "closed").
 * Undefined under Deno.
 */
export function startStdioStats(): StdioStats | undefined {
  if (!entryOnBun()) return undefined;
  const statOf = (fd: 0 | 1) => {
    const stat = Bun.file(fd).stat();
    stat.catch(() => {});
    return stat;
  };
  return [statOf(0), statOf(1)];
}

/**
 * Nothing at `path` (files.ts's `fileSizeSync(path) === 0`): Bun sizes a socket Infinity, a missing path 0. Bun
 * only.
 */
export function nothingAt(path: string): boolean {
  return Bun.file(path).size === 0;
}
