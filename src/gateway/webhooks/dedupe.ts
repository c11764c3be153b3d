import type { Dedupe } from "./dedupe-contract.ts";

/** How long a platform's message id is remembered: its retries of one delivery come within this. */
export const DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Platforms re-deliver a webhook when the answer is slow or lost; one message must still make one turn. Keyed on
 * (channel, message id); an entry can be forgotten again when dispatching failed, so the platform's retry runs.
 */
export function createDedupe(opts: { ttlMs?: number; now?: () => number } = {}): Dedupe {
  const ttl = opts.ttlMs ?? DEDUPE_TTL_MS;
  const now = opts.now ?? Date.now;
  const seen = new Map<string, number>();
  let lastSweep = now();

  const sweep = () => {
    const t = now();
    if (t - lastSweep < 5 * 60_000) return;
    lastSweep = t;
    for (const [key, at] of seen) if (t - at > ttl) seen.delete(key);
  };

  return {
    first(channel: string, messageId: string): boolean {
      sweep();
      const key = `${channel}\u001f${messageId}`;
      const at = seen.get(key);
      if (at !== undefined && now() - at <= ttl) return false;
      seen.set(key, now());
      return true;
    },
    forget(channel: string, messageId: string): void {
      seen.delete(`${channel}\u001f${messageId}`);
    },
  };
}
