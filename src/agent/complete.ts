import { type RouterDeps, routeModelCall } from "../providers/router.ts";
import type { Route } from "../providers/routes.ts";
import type { Message, ProviderFailure } from "../providers/types.ts";

export type CompletionResult =
  | { ok: true; text: string; provider: string; model: string }
  | { ok: false; failure: ProviderFailure };

/**
 * One model call with no tools, for fermix's own housekeeping (memory review, compaction summaries):
 * the same routes and failover as a turn, the answer collected rather than streamed.
 */
export async function completeOnce(input: {
  routes: Route[];
  router: RouterDeps;
  system: string;
  messages: Message[];
  signal?: AbortSignal;
}): Promise<CompletionResult> {
  let text = "";
  let provider = input.routes[0]?.descriptor.id ?? "";
  let model = input.routes[0]?.model ?? "";
  const call = { request: { system: input.system, messages: input.messages }, signal: input.signal, firstCall: true };
  for await (const event of routeModelCall(input.routes, call, input.router)) {
    if (event.type === "route") {
      provider = event.provider;
      model = event.model;
    } else if (event.type === "text_delta") text += event.text;
    else if (event.type === "error") return { ok: false, failure: event.error };
  }
  return { ok: true, text, provider, model };
}
