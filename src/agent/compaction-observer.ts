import type { ConversationKey, MessageStore } from "../memory/messages-contract.ts";
import type { Log } from "../observability/log.ts";
import type { Observers } from "../observability/observers.ts";
import type { RouterDeps } from "../providers/router.ts";
import type { Route, RouteChoice } from "../providers/routes.ts";
import { conversationScope, scopedRouter } from "../usage/meter.ts";
import { BELOW_THRESHOLD, belowThreshold, type CompactionResult, compactConversation } from "./compaction.ts";
import type { TurnResult } from "./turn.ts";
import type { TurnEvents } from "./turn-events.ts";

export type Compactor = (
  key: ConversationKey,
  opts: {
    systemTokens: number;
    force: boolean;
    choice?: RouteChoice;
    signal?: AbortSignal;
    /** The finished turn's view of the conversation (TurnResult.context): below the threshold, nothing is read. */
    known?: TurnResult["context"];
  },
) => Promise<CompactionResult>;

/** Compaction as the app runs it: after a turn (below), and on /compact. */
export function createCompactor(deps: {
  store: MessageStore;
  routes: (choice: RouteChoice) => Route[];
  router: RouterDeps;
  threshold?: number;
}): Compactor {
  return (key, opts) => {
    // After most turns the conversation is far from full: the turn already knows its size, so neither the history
    // (every message parsed again) nor the routes (keys resolved again) are read just to learn that.
    const known = opts.known;
    if (
      !opts.force &&
      known &&
      belowThreshold(opts.systemTokens + known.conversationTokens, known.contextWindow, deps.threshold)
    )
      return Promise.resolve(BELOW_THRESHOLD);
    return compactConversation(
      key,
      { systemTokens: opts.systemTokens, threshold: deps.threshold, force: opts.force },
      {
        store: deps.store,
        routes: deps.routes(opts.choice ?? {}),
        router: scopedRouter(deps.router, conversationScope("compaction", key)),
        signal: opts.signal,
      },
    );
  };
}

/** After each conversation turn, inside its lane, so the next turn sees the folded history. */
export function observeCompaction(
  events: Observers<TurnEvents>,
  deps: { compact: Compactor; enabled: boolean; log: Log },
): void {
  if (!deps.enabled) return;
  events.on("turn_finished", async ({ input, result }) => {
    const done = await deps
      .compact(input.key, {
        systemTokens: result.systemTokens ?? 0,
        force: false,
        choice: input.choice,
        signal: input.signal,
        known: result.context,
      })
      .catch((err: Error) => {
        deps.log.warn(`compaction failed: ${err.message}`);
        return undefined;
      });
    if (done?.compacted)
      deps.log.info(`compacted ${done.foldedMessages} messages of ${input.key.channel}:${input.key.chat}`);
  });
}
