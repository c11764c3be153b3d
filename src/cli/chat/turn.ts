import type { ApprovalRequest, AskDone, AskRequest } from "../../protocol/schemas.ts";
import type { LineReader } from "./line-reader.ts";
import { createMarkdownStream, type Styles } from "./markdown.ts";
import type { ChatTransport } from "./transport.ts";

/** How a turn in the chat ended: answered, cancelled with Ctrl-C, or failed (the error already shown). */
export type TurnOutcome =
  | { kind: "answered"; done: AskDone; approvals: ApprovalRequest[] }
  | { kind: "cancelled" }
  | { kind: "failed"; error: unknown };

export type TurnDeps = {
  transport: ChatTransport;
  reader: LineReader;
  styles: Styles | undefined;
  /** stdout; the chat's own lines too, so they interleave with the answer in order. */
  out: { write(text: string): void; atLineStart(): boolean };
};

/**
 * One message through the transport, its answer rendered as it streams. Ctrl-C aborts the request (the daemon
 * cancels the turn when the client hangs up, and a cancelled turn stores nothing) and returns at once: the
 * prompt does not wait for the turn to wind down. Directory requests are collected, to be asked once it is over;
 * a computer-use question is asked at once, since the turn waits for its answer.
 */
export async function runChatTurn(request: AskRequest, deps: TurnDeps): Promise<TurnOutcome> {
  const { out, styles } = deps;
  const controller = new AbortController();
  const markdown = createMarkdownStream(styles, (text) => out.write(text));
  const approvals: ApprovalRequest[] = [];
  let streamed = false;
  let release = () => {};
  let cancel = () => {};
  const interrupted = new Promise<TurnOutcome>((resolve) => {
    cancel = () => {
      controller.abort(new Error("cancelled"));
      resolve({ kind: "cancelled" });
    };
    release = deps.reader.busy(cancel);
  });
  // A computer-use question holds the running turn: asked now, and answered beside it in the same session.
  let asking = Promise.resolve();
  const askNow = (approval: ApprovalRequest) => {
    asking = asking.then(async () => {
      if (controller.signal.aborted) return;
      release();
      if (!out.atLineStart()) out.write("\n");
      const yes = await deps.reader.ask(`fermix wants to ${approval.reason} into ${approval.path}: allow? [y/N] `);
      if (!controller.signal.aborted) release = deps.reader.busy(cancel);
      const text = `/${yes ? "confirm" : "deny"} ${approval.token}`;
      const answered = await deps.transport.ask({ ...request, text }, {}).catch((err: Error) => ({
        response: err.message,
      }));
      note(answered.response);
    });
  };
  const answer = deps.transport
    .ask(request, {
      signal: controller.signal,
      onText: (delta) => {
        if (controller.signal.aborted) return;
        streamed = true;
        markdown.push(delta);
      },
      onNotice: (text, approval) => {
        if (controller.signal.aborted) return;
        // A kind this chat knows is asked inline once the turn is over; any other notice is shown as it comes.
        if (approval?.kind === "directory") approvals.push(approval);
        else if (approval?.kind === "computer_use" && request.session_id) askNow(approval);
        else note(text);
      },
    })
    .then(
      (done): TurnOutcome => ({ kind: "answered", done, approvals }),
      (error): TurnOutcome => ({ kind: "failed", error }),
    );
  const outcome = await Promise.race([answer, interrupted]);
  await asking;
  release();
  if (outcome.kind === "answered") {
    // A slash command's answer (or a daemon that streamed nothing) arrives whole.
    if (!streamed) markdown.push(`${outcome.done.response}\n`);
    markdown.end();
  }
  if (!out.atLineStart()) out.write("\n");
  if (outcome.kind === "cancelled") out.write(`${dim("(cancelled)")}\n`);
  return outcome;

  function note(text: string) {
    if (!out.atLineStart()) out.write("\n");
    out.write(`${dim(text)}\n`);
  }
  function dim(text: string) {
    return styles ? styles.dim(text) : text;
  }
}
