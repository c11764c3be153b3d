import type { Env } from "../config/env.ts";

/**
 * What the daemon's allocator is told, for a process that answers asks for days. Bun's mimalloc gives back the free
 * holes inside its pages each time a thread goes idle, at most every 100 ms; a daemon answering asks ~80 ms apart
 * then gives back and faults in again ~50 pages an ask (issue 31: measured 110 → 64 page faults and ~4 ms less CPU
 * an ask in a young daemon, where a fault costs 15–35 µs). Every 2 s still hands memory back between bursts, and the
 * idle collection (agent/idle-collection.ts) hands all of it back once the daemon falls quiet: the RSS after a
 * thousand turns settles as before (bench/daemon-rss: 58.0 MB in 2.3 s; at 5 s it kept ~15% more of the fault
 * saving but settled at 59.0–60.2 MB, once only after 4.8 s, too near the bound of 1.5× the boot's).
 */
export const ALLOCATOR_SETTINGS: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "2000" };

export type Exec = { file: string; args: string[]; env: Record<string, string> };

/**
 * The exec that starts this daemon again with the allocator settings, or undefined when it needs none: they are set
 * already (by that exec, or by the owner, whose values win), the runtime cannot replace its own process image, or
 * this is a checkout run by `bun src/main.ts` (a developer's daemon, whose runtime flags such as --preload an exec of
 * the entry alone would drop). mimalloc reads its options from the environment and a program cannot set them once it
 * runs.
 */
export function allocatorExec(
  env: Env,
  self: { binary: string; entry?: string },
  args: readonly string[],
  canExec: boolean,
): Exec | undefined {
  if (!canExec || self.entry !== undefined) return undefined;
  if (Object.keys(ALLOCATOR_SETTINGS).every((name) => env[name] !== undefined)) return undefined;
  const merged: Record<string, string> = { ...ALLOCATOR_SETTINGS };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return { file: self.binary, args: [self.binary, ...args], env: merged };
}
