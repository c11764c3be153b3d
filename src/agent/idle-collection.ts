import type { Observers } from "../observability/observers.ts";
import { collectGarbage } from "../runtime/gc.ts";
import type { TurnEvents } from "./turn-events.ts";

/** How long the daemon must stay without a running or queued turn before it collects. */
const QUIET_MS = 200;

/**
 * The daemon gives back what its turns left behind once it falls quiet. A turn's garbage (request and response
 * bodies, streamed events, tool specs) would otherwise stay in the heap until allocation pressure collects it, and an
 * idle daemon is what sits in memory most of the day (issue 31). A full collection takes a few milliseconds on the
 * one thread, so it runs only in a quiet spell after the last turn finished, and not at all while a turn is running
 * or queued then (that turn's own finish arms it again).
 */
export function collectWhenIdle(
  events: Observers<TurnEvents>,
  lanes: { readonly active: number; readonly queued: number },
  opts: { quietMs?: number; collect?: () => void } = {},
): void {
  const collect = opts.collect ?? collectGarbage;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    // The finished turn still holds its lane here (observers run inside it): the check waits for the timer.
    timer = setTimeout(() => {
      if (lanes.active === 0 && lanes.queued === 0) collect();
    }, opts.quietMs ?? QUIET_MS);
    (timer as { unref?: () => void }).unref?.();
  };
  events.on("turn_finished", arm);
}
