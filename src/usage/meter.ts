import type { Config } from "../config/schema.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { Log } from "../observability/log.ts";
import type { AttemptInfo, RouterDeps } from "../providers/router.ts";
import { sessionId } from "../sessions/session-store.ts";
import type { RouteKind, UsageRecorder } from "./ledger-contract.ts";
import { costOf } from "./pricing.ts";

/** Who a model call was made for: what its ledger row carries besides the call itself. */
export type CallScope = { kind: RouteKind; sessionId: string; channel: string; jobId?: string; runId?: string };

/** Records one finished attempt (one that reported usage) under its scope. */
export type UsageMeter = (scope: CallScope, attempt: AttemptInfo) => void;

/**
 * The router as the app builds it, carrying the meter. It travels with the router (every part already receives
 * that) and is read only by `scopedRouter`, so a part that makes model calls needs no new dependency, only its scope.
 */
export type MeteredRouterDeps = RouterDeps & { usageMeter?: UsageMeter };

/** A conversation's scope: its `fermix sessions` id and channel. */
export function conversationScope(
  kind: RouteKind,
  key: ConversationKey,
  job?: { jobId?: string; runId?: string },
): CallScope {
  return { kind, sessionId: sessionId(key), channel: key.channel, ...job };
}

/** Housekeeping that belongs to no conversation (the memory review, a /soul draft): its own session id. */
export function housekeepingScope(kind: RouteKind, session: string): CallScope {
  return { kind, sessionId: session, channel: "fermix" };
}

export function withUsageMeter(router: RouterDeps, meter: UsageMeter): MeteredRouterDeps {
  return { ...router, usageMeter: meter };
}

/**
 * The router whose attempts are counted under `scope`. The copy drops the meter, so a caller further down that
 * scopes again (a job's turn inside its own scope) cannot count a call twice: the outermost scope wins.
 */
export function scopedRouter(router: RouterDeps, scope: CallScope): RouterDeps {
  const meter = (router as MeteredRouterDeps).usageMeter;
  if (!meter) return router;
  return {
    ...router,
    usageMeter: undefined,
    onAttempt: (attempt) => {
      router.onAttempt?.(attempt);
      if (attempt.usage) meter(scope, attempt);
    },
  } as MeteredRouterDeps;
}

/**
 * Prices each call (config.toml's [fermix_core.pricing] as it is now, then the built-in list) and appends its row.
 * A row is written when its call completes, in its own short transaction, whatever becomes of the turn: the call
 * was paid for even if the turn is cancelled or the process dies before the turn's commit. A ledger that cannot be
 * written (a locked or full disk) is logged and never fails the turn.
 */
export function createUsageMeter(deps: {
  ledger: () => UsageRecorder;
  config: () => Config;
  now: () => number;
  log: Log;
}): UsageMeter {
  return (scope, attempt) => {
    const usage = attempt.usage!;
    try {
      const cost = costOf({ ...attempt, usage }, deps.config().fermix_core?.pricing);
      deps.ledger().recordCall({
        ...scope,
        at: deps.now(),
        provider: attempt.provider,
        model: attempt.model,
        inputTokens: usage.inputTokens,
        cachedInputTokens: usage.cachedInputTokens ?? 0,
        outputTokens: usage.outputTokens,
        reasoningTokens: usage.reasoningTokens ?? 0,
        ...cost,
      });
    } catch (err) {
      deps.log.warn(
        `usage ledger: a ${attempt.provider}/${attempt.model} call was not recorded: ${(err as Error).message}`,
      );
    }
  };
}
