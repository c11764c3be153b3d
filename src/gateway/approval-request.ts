import type { ApprovalRequest } from "../protocol/schemas.ts";

const ASKS = /^fermix asks for access to (.+)$/m;
const REASON = /^Reason: ([\s\S]*?)\nApproving adds it/m;
// "fermix asks to use the computer: <action> into <window>, <why>": reason is the action, path the window and why.
const COMPUTER_USE = /^fermix asks to use the computer: ([\s\S]*?) into (.+?), (a terminal|a window titled [\s\S]*?)$/m;
// The token line as approval-notices.ts finds it for a chat's buttons.
const CONFIRM = /\/confirm ([A-Z0-9]{6,12})\b/;

/**
 * The structured form of a directory-access notice (request_directory_access's text), for a local client that
 * asks it inline. Read back from the notice rather than passed beside it: the notice is the one form a request
 * takes on every surface (a channel's buttons read its token line the same way), so the tool contract stays a
 * plain `notify(text)`; test/gateway/approval-request.test.ts pins the tool's wording to this parser.
 */
export function approvalFromNotice(text: string): ApprovalRequest | undefined {
  const action = COMPUTER_USE.exec(text);
  const actionToken = CONFIRM.exec(text)?.[1];
  // computer_use's question (capabilities/builtins/computer-use.ts): the running turn waits for the answer.
  if (action && actionToken) {
    return { kind: "computer_use", path: `${action[2]!}, ${action[3]!}`, reason: action[1]!, token: actionToken };
  }
  const path = ASKS.exec(text)?.[1];
  const reason = REASON.exec(text)?.[1];
  const token = CONFIRM.exec(text)?.[1];
  if (!path || reason === undefined || !token) return undefined;
  return { kind: "directory", path, reason, token };
}
