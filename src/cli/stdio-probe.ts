import type { StdioStats } from "../runtime/entry-probes.ts";
import { type DescriptorKind, descriptorKind } from "../runtime/files.ts";

/** What a standard descriptor is; "closed" when it is not open at all. */
export type ProbedKind = DescriptorKind | "closed";

const asked = new Map<number, Promise<ProbedKind>>();
let started: StdioStats | undefined;

/** The stats src/main.ts asked for (cli/ask-early.ts), read instead of asking again. */
export function useStartedStats(stats: StdioStats | undefined): void {
  started = stats;
}

/**
 * What stdin (0) or stdout (1) is, asked of the runtime once per process. The stat runs on Bun's thread pool, whose
 * first answer takes ~4 ms, so `fermix ask`'s entry (src/main.ts) asks for both before any of ask's code loads and
 * they are read here (useStartedStats) (issue 31). The descriptors a process was started with do not change.
 */
export function probeDescriptor(fd: 0 | 1): Promise<ProbedKind> {
  let kind = asked.get(fd);
  if (!kind) {
    kind = descriptorKind(fd, started?.[fd]).catch(() => "closed" as const);
    asked.set(fd, kind);
  }
  return kind;
}
