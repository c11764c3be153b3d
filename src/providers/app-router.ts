import type { Log } from "../observability/log.ts";
import type { FailoverInfo, RouterDeps } from "./router.ts";
import { WIRES } from "./wires/registry.ts";

/** The router as the app runs it: every wire, plain fetch, retries logged, failovers handed to the observers. */
export function createAppRouter(deps: {
  fetch: typeof fetch;
  now: () => number;
  log: Log;
  onFailover(info: FailoverInfo): void;
}): RouterDeps {
  return {
    wires: WIRES,
    fetch: deps.fetch,
    now: deps.now,
    onRetry: (i) => deps.log.warn(`retrying ${i.provider} (attempt ${i.attempt + 1}) after: ${i.failure.message}`),
    onFailover: deps.onFailover,
    warn: (message) => deps.log.warn(message),
  };
}
