import type { Log } from "../observability/log.ts";
import type { FailoverInfo, RouterDeps } from "./router.ts";
import { WIRES } from "./wires/registry.ts";

/** The router as the app runs it: every wire, plain fetch, retries logged, failovers handed to the observers. */
export function createAppRouter(deps: {
  fetch: typeof fetch;
  now: () => number;
  log: Log;
  onFailover(info: FailoverInfo): void;
  /**
   * Run once, as soon as the process's first model request has been handed to fetch: while the provider thinks, the
   * thread has nothing else to do (a one-shot ask opens memory.db then, issue 31).
   */
  afterFirstRequest?: () => void;
}): RouterDeps {
  return {
    wires: WIRES,
    fetch: deps.afterFirstRequest ? thenOnce(deps.fetch, deps.afterFirstRequest) : deps.fetch,
    now: deps.now,
    onRetry: (i) => deps.log.warn(`retrying ${i.provider} (attempt ${i.attempt + 1}) after: ${i.failure.message}`),
    onFailover: deps.onFailover,
    warn: (message) => deps.log.warn(message),
  };
}

/** `fetch`, which runs `then` once, right after its first call has sent its request on its way. */
function thenOnce(fetcher: typeof fetch, then: () => void): typeof fetch {
  let pending: (() => void) | undefined = then;
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const answer = fetcher(input, init);
    const run = pending;
    pending = undefined;
    run?.();
    return answer;
  }) as typeof fetch;
}
