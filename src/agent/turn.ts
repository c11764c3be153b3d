import { defineError, FermixError } from "../error.ts";
import { newId } from "../ids.ts";
import type { ConversationKey, MessageStore } from "../memory/messages.ts";
import { type RouterDeps, routeModelCall } from "../providers/router.ts";
import type { Route, RouteChoice } from "../providers/routes.ts";
import type { AssistantMessage, Message, ProviderFailure, UserMessage } from "../providers/types.ts";
import { failureToError, TurnCancelled, TurnTimedOut } from "./failure-error.ts";
import { buildSystemPrompt } from "./prompt.ts";

export const EmptyCompletion = defineError("empty_completion");
export const EMPTY_REPLY = "The model sent back an empty answer, so nothing was saved. Please try again.";

export type TurnInput = {
  key: ConversationKey;
  text: string;
  cwd?: string;
  choice?: RouteChoice;
  signal?: AbortSignal;
  onText?: (delta: string) => void;
};

export type TurnResult = { response: string; provider: string; model: string; turnId: string };

export type TurnDeps = {
  store: MessageStore;
  routes: (choice: RouteChoice) => Route[];
  router: RouterDeps;
  now: () => number;
  agentName: string;
  timezone: string;
};

/**
 * One turn: history → prompt → model call (with failover) → commit. The user's message and the reply
 * are committed together only when the reply has content, so a failed, cancelled or empty turn leaves
 * the conversation exactly as it was.
 */
export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnResult> {
  const routes = deps.routes(input.choice ?? {});
  const history = deps.store.history(input.key);
  const user: UserMessage = { role: "user", content: [{ type: "text", text: input.text }] };
  const system = buildSystemPrompt({
    agentName: deps.agentName,
    now: new Date(deps.now()),
    timezone: deps.timezone,
    cwd: input.cwd,
  });

  const reply: AssistantMessage = { role: "assistant", content: [] };
  let text = "";
  let provider = routes[0]!.descriptor.id;
  let model = routes[0]!.model;
  let failure: ProviderFailure | undefined;
  const call = { request: { system, messages: [...history, user] }, signal: input.signal, firstCall: true };
  for await (const event of routeModelCall(routes, call, deps.router)) {
    if (event.type === "route") {
      provider = event.provider;
      model = event.model;
    } else if (event.type === "text_delta") {
      text += event.text;
      input.onText?.(event.text);
    } else if (event.type === "reasoning") {
      reply.content.push(event.part);
    } else if (event.type === "error") {
      failure = event.error;
    }
  }
  if (input.signal?.aborted) throw abortError(input.signal);
  if (failure) throw failureToError(failure, deps.now(), { afterOutput: text.length > 0 });
  if (!text.trim()) throw EmptyCompletion(EMPTY_REPLY, { provider, model });

  reply.content.push({ type: "text", text });
  const turnId = newId("turn", 6);
  const messages: Message[] = [user, reply];
  deps.store.commitTurn(input.key, messages, { turnId, provider, model });
  return { response: text, provider, model, turnId };
}

function abortError(signal: AbortSignal): FermixError {
  const reason = signal.reason;
  if (reason instanceof FermixError) return reason;
  if (reason instanceof DOMException && reason.name === "TimeoutError") {
    return TurnTimedOut("no answer within the time limit (--timeout); nothing was saved");
  }
  return TurnCancelled("the request was cancelled; nothing was saved");
}
