import { TurnTimedOut } from "../agent/failure-error.ts";
import type { App } from "../app-contract.ts";
import { newId } from "../ids.ts";
import type { ApprovalRequest, AskDone, AskRequest } from "../protocol/schemas.ts";
import { approvalFromNotice } from "./approval-request.ts";
import { askTurnExtras, createUsageTally } from "./ask-extras.ts";

/**
 * A local caller's ask (the CLI directly, or through the daemon): one session is one conversation on
 * the `cli` channel. Without a session id each ask starts a fresh conversation, so scripted calls never
 * see each other's history; the id comes back so a script can continue it.
 */
export async function askLocally(
  app: App,
  request: AskRequest,
  opts: {
    signal?: AbortSignal;
    onText?: (delta: string) => void;
    /** `approval`: an approval request's notice in structured form (for `fermix chat`'s inline question). */
    onNotice?: (text: string, approval?: ApprovalRequest) => void;
  } = {},
): Promise<AskDone> {
  const sessionId = request.session_id ?? newId("ses");
  // A session id made here names no stored conversation yet: the turn skips reading its history.
  const newConversation = request.session_id === undefined ? ({ newConversation: true } as const) : {};
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = request.timeout_ms
    ? setTimeout(
        () =>
          controller.abort(
            TurnTimedOut(`no answer within ${formatMs(request.timeout_ms!)} (--timeout); nothing was saved`),
          ),
        request.timeout_ms,
      )
    : undefined;
  // The CLI runs as the owner on this machine (the socket is the owner's alone).
  const caller = { trust: "operator", local: true, attended: true, cwd: request.cwd } as const;
  const usage = createUsageTally();
  try {
    const result = await app.ask({
      key: { channel: "cli", chat: sessionId },
      ...newConversation,
      text: request.text,
      caller,
      ...askTurnExtras(app, request, caller),
      onUsage: usage.add,
      choice: { provider: request.provider, model: request.model },
      schema: request.schema,
      signal: controller.signal,
      onText: opts.onText,
      onNotice: opts.onNotice && ((text) => opts.onNotice?.(text, approvalFromNotice(text))),
    });
    return {
      response: result.response,
      session_id: sessionId,
      provider: result.provider,
      model: result.model,
      ...(result.truncated ? { truncated: true } : {}),
      usage: usage.total(),
    };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
