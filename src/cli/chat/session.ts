import { redact } from "../../observability/redact.ts";
import type { ApprovalRequest, AskRequest } from "../../protocol/schemas.ts";
import { asFermixError } from "../exit.ts";
import type { LineReader } from "./line-reader.ts";
import type { Styles } from "./markdown.ts";
import type { ChatTransport } from "./transport.ts";
import { runChatTurn, type TurnDeps } from "./turn.ts";

export type ChatDeps = {
  transport: ChatTransport;
  reader: LineReader;
  styles: Styles | undefined;
  out: TurnDeps["out"];
  err: (text: string) => void;
  /** The request every message is sent with (ask's flags), its text replaced; `session_id` unset with -c. */
  template: AskRequest;
  /** Called after each message is read, so history survives a crash. */
  saveHistory(): void;
  userHome: string;
};

/** Keys and chat-only commands, added under the gateway's /help. */
const CHAT_HELP = [
  "In this chat: Ctrl-C cancels an answer while it streams; /exit, Ctrl-D or Ctrl-C twice at an empty prompt leaves.",
  "A pasted block is one message; end a line with \\ to go on on the next.",
];

/**
 * The interactive loop: a prompt, the message through the transport in one session, the answer rendered, any
 * approval the turn asked for asked inline. Slash commands go to the session like any message: the gateway's
 * registry answers them with the owner's rules (the CLI is the attended operator), as for `fermix ask -s ID`.
 */
export async function runChatSession(deps: ChatDeps): Promise<void> {
  const { out, styles } = deps;
  const dim = (text: string) => (styles ? styles.dim(text) : text);
  let sessionId = deps.template.session_id;
  const request = (text: string): AskRequest => {
    const base: AskRequest & { continue?: unknown } = { ...deps.template, text };
    // Once the first answer named the session (-c found it), every later message continues that one.
    if (sessionId) {
      base.session_id = sessionId;
      delete base.continue;
    }
    return base;
  };
  out.write(`${dim(`fermix chat (${deps.transport.via}) — /help for commands, Ctrl-D to leave`)}\n`);

  const send = async (text: string): Promise<string | undefined> => {
    const outcome = await runChatTurn(request(text), deps);
    if (outcome.kind === "failed") {
      deps.err(`fermix: ${redact(asFermixError(outcome.error).message)}\n`);
      return undefined;
    }
    if (outcome.kind === "cancelled") return undefined;
    sessionId = outcome.done.session_id;
    for (const approval of outcome.approvals) await settle(approval, text);
    return outcome.done.response;
  };

  /** y: what `/confirm TOKEN` does in this session, then the request again, as a channel re-runs it; else /deny. */
  const settle = async (approval: ApprovalRequest, original: string) => {
    const where = approval.path.startsWith(`${deps.userHome}/`)
      ? `~${approval.path.slice(deps.userHome.length)}`
      : approval.path;
    const yes = await deps.reader.ask(`fermix wants to use ${where} (${approval.reason}): allow? [y/N] `);
    const answer = await send(`/${yes ? "confirm" : "deny"} ${approval.token}`);
    if (yes && answer?.startsWith("Granted")) await send(original);
  };

  while (true) {
    const read = await deps.reader.read(styles ? styles.bold("> ") : "> ", "… ");
    if (read.kind === "exit") return;
    deps.saveHistory();
    const command = read.text.trim().toLowerCase();
    if (command === "/exit" || command === "/quit") return;
    if (command === "/stop") {
      out.write(`${dim("Nothing is running: /stop (or Ctrl-C) cancels an answer while it streams.")}\n`);
      continue;
    }
    const answer = await send(read.text);
    if (command === "/help" && answer !== undefined) out.write(`${dim(CHAT_HELP.join("\n"))}\n`);
  }
}
