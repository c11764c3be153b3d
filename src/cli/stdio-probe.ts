import { type DescriptorKind, type DescriptorStat, descriptorKind } from "../runtime/files.ts";

/** What a standard descriptor is; "closed" when it is not open at all. */
export type ProbedKind = DescriptorKind | "closed";

const asked = new Map<number, Promise<ProbedKind>>();

/**
 * What stdin (0) or stdout (1) is, asked of the runtime once per process. The stat runs on Bun's thread pool, so
 * `fermix ask` starts both before its run code loads (src/cli/ask.ts) and the answers arrive while the main thread
 * evaluates modules: ~1 ms off every ask (issue 31). The descriptors a process was started with do not change.
 */
export function probeDescriptor(fd: 0 | 1, statting?: Promise<DescriptorStat>): Promise<ProbedKind> {
  let kind = asked.get(fd);
  if (!kind) {
    kind = descriptorKind(fd, statting).catch(() => "closed" as const);
    asked.set(fd, kind);
  }
  return kind;
}

/** Stdin's and stdout's stats, asked for by src/main.ts before any of ask's code loaded. */
export type StdioStats = readonly [Promise<DescriptorStat>, Promise<DescriptorStat>];

/** Both of `fermix ask`'s: started by the entry (src/main.ts) before the command tree loads. */
export function probeStdio(started?: StdioStats): void {
  void probeDescriptor(0, started?.[0]);
  void probeDescriptor(1, started?.[1]);
}
