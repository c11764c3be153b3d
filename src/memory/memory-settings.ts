import type { MemorySettings } from "../config/sections/memory.ts";

/** The review's settings in the units review.ts takes; absent keys stay undefined (its defaults). */
export function reviewSettings(memory: MemorySettings | undefined): {
  intervalMs?: number;
  retryAfterMs?: number;
  maxChanges?: number;
} {
  return {
    ...(memory?.review_interval_hours !== undefined ? { intervalMs: memory.review_interval_hours * 3_600_000 } : {}),
    ...(memory?.review_retry_minutes !== undefined ? { retryAfterMs: memory.review_retry_minutes * 60_000 } : {}),
    ...(memory?.review_max_changes !== undefined ? { maxChanges: memory.review_max_changes } : {}),
  };
}
