import { bun, onBun } from "./host.ts";

/**
 * A full, synchronous garbage collection, which also hands the freed heap pages back to the system. Bun only:
 * Deno offers no such call to a program, so there it does nothing.
 */
export function collectGarbage(): void {
  if (onBun) bun().gc(true);
}
