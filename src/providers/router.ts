import { createBackoff } from "../net/backoff.ts";
import { sleep as pause } from "../runtime/processes.ts";
import type { Route } from "./routes.ts";
import type { ModelRequest, ProviderFailure, StreamEvent, Usage, Wire, WireDeps, WireId } from "./types.ts";

export type RouterDeps = WireDeps & {
  wires: Record<WireId, Wire>;
  sleep?: (ms: number) => Promise<void>;
  /** The retry backoff's jitter source (tests pass a constant). */
  random?: () => number;
  onFailover?: (info: FailoverInfo) => void;
  onRetry?: (info: { provider: string; attempt: number; failure: ProviderFailure }) => void;
  /** After every attempt on a route, whatever its outcome: what traces record as one llm_call. */
  onAttempt?: (info: AttemptInfo) => void;
  /**
   * Same-provider retries of a transient failure (default RETRY_ATTEMPTS). Scheduled jobs pass 0: they keep
   * their own deadline-bounded retry, and two retry loops stacked could overrun the job's timeout.
   */
  retryAttempts?: number;
};

/** One hop down the chain: the route that failed, the one tried next, and why. */
export type FailoverInfo = {
  from: string;
  fromModel: string;
  to: string;
  toModel: string;
  failure: ProviderFailure;
  /** The traced work the call belongs to (a turn's session), when it is traced (see tracedRouter). */
  sessionId?: string;
};

export type AttemptInfo = {
  provider: string;
  model: string;
  /** 1 for the first try on this route, 2 and 3 for its retries. */
  attempt: number;
  durationMs: number;
  failure?: ProviderFailure;
  stopReason?: string;
  usage?: Usage;
  toolCalls: number;
  /** The route ran on a subscription sign-in (a plan pays for it, not the tokens): the usage ledger's billing. */
  plan: boolean;
};

/** What the router adds to a wire's stream: which route is answering, before its first event. */
export type RoutedEvent = StreamEvent | { type: "route"; provider: string; model: string };

export type RouteCall = {
  request: Omit<ModelRequest, "model" | "effort">;
  signal?: AbortSignal;
  /**
   * Failover is allowed only on a turn's first model call: later calls continue a tool loop that
   * must stay on the route that started it.
   */
  firstCall: boolean;
};

/**
 * Same-provider retries before failing over; small and short so a flake heals without a visible stall. The waits
 * follow the shared backoff rule (net/backoff.ts): RETRY_BASE_MS doubling, with jitter, capped at RETRY_MAX_MS.
 */
export const RETRY_ATTEMPTS = 2;
export const RETRY_BASE_MS = 200;
export const RETRY_MAX_MS = 2_000;

/**
 * Calls the routes in order. Transient failures get a bounded same-provider retry with exponential
 * backoff; then a transient, rate-limit or residual sign-in failure fails over to the next route. Nothing is retried or
 * failed over once the stream has shown output (a replay would duplicate it), and auth,
 * context-length and request errors surface at once.
 */
export async function* routeModelCall(routes: Route[], call: RouteCall, deps: RouterDeps): AsyncGenerator<RoutedEvent> {
  const sleep = deps.sleep ?? pause;
  let lastFailure: ProviderFailure | undefined;
  for (let r = 0; r < routes.length; r++) {
    const route = routes[r]!;
    const wire = deps.wires[route.descriptor.wire];
    const request: ModelRequest = { ...call.request, model: route.model, effort: route.effort };
    const waits = createBackoff({ initialMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS }, deps.random);
    for (let attempt = 0; ; attempt++) {
      yield { type: "route", provider: route.descriptor.id, model: route.model };
      let produced = false;
      let failure: ProviderFailure | undefined;
      let done: Extract<StreamEvent, { type: "done" }> | undefined;
      let toolCalls = 0;
      const started = performance.now();
      const report = () =>
        deps.onAttempt?.({
          provider: route.descriptor.id,
          model: route.model,
          attempt: attempt + 1,
          durationMs: Math.round(performance.now() - started),
          failure,
          stopReason: done?.stopReason,
          usage: done?.usage,
          toolCalls,
          plan: route.target.oauth !== undefined,
        });
      try {
        for await (const event of wire.stream({ target: route.target, request, signal: call.signal }, deps)) {
          if (event.type === "error") {
            failure = event.error;
            break;
          }
          if (event.type === "text_delta" || event.type === "tool_call") produced = true;
          if (event.type === "tool_call") toolCalls++;
          if (event.type === "done") done = event;
          yield event;
          if (event.type === "done") return;
        }
      } finally {
        report();
      }
      if (!failure) return;
      lastFailure = failure;
      if (produced || failure.class === "cancelled") {
        yield { type: "error", error: failure };
        return;
      }
      if (failure.class === "transient" && attempt < (deps.retryAttempts ?? RETRY_ATTEMPTS) && !call.signal?.aborted) {
        deps.onRetry?.({ provider: route.descriptor.id, attempt: attempt + 1, failure });
        await sleep(waits.next());
        continue;
      }
      break;
    }
    const next = routes[r + 1];
    // A signed-in credential that still failed after the wire's own refresh and retry may fail over; a bad API key never.
    const canFailOver =
      call.firstCall &&
      (lastFailure.class === "transient" || lastFailure.class === "rate_limit" || lastFailure.oauthResidual === true);
    if (!next || !canFailOver) break;
    deps.onFailover?.({
      from: route.descriptor.id,
      fromModel: route.model,
      to: next.descriptor.id,
      toModel: next.model,
      failure: lastFailure,
    });
  }
  if (lastFailure) yield { type: "error", error: lastFailure };
}
