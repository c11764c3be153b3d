/**
 * What a stdout line from signal-cli that failed the JSON-RPC schema is: an answer with a fault (and, when it has
 * one, the id of the request it answers), a notification that does not fit (nothing waits for it), or a line that
 * is not JSON-RPC at all (no request can be told from it).
 */
export type MalformedLine =
  | { kind: "answer"; id: number; why: string }
  | { kind: "unmatched"; why: string }
  | { kind: "notification"; method: string };

export function classifyMalformed(line: string): MalformedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: "unmatched", why: `a line that is not JSON (${clip(line)})` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "unmatched", why: `a line that is not a JSON-RPC object (${clip(line)})` };
  }
  const message = value as Record<string, unknown>;
  if (typeof message.method === "string" && !("result" in message) && !("error" in message)) {
    return { kind: "notification", method: message.method };
  }
  const fault = answerFault(message);
  if (typeof message.id !== "number") {
    return { kind: "unmatched", why: `an answer without a usable id${fault ? ` (${fault})` : ""}` };
  }
  return { kind: "answer", id: message.id, why: fault ?? "it is not a JSON-RPC answer" };
}

/** What is wrong with a line that looked like an answer but failed the JSON-RPC schema. */
function answerFault(message: Record<string, unknown>): string | undefined {
  if ("result" in message) {
    const result = message.result;
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      return `its result is ${result === null ? "null" : Array.isArray(result) ? "an array" : `a ${typeof result}`}, not an object`;
    }
  }
  if ("error" in message) {
    const error = message.error as { code?: unknown; message?: unknown } | null;
    if (typeof error?.code !== "number" || typeof error.message !== "string") {
      return "its error is not a JSON-RPC error (a numeric code and a message)";
    }
    if (message.id === null || message.id === undefined) return `its error ${error.code}: ${clip(error.message)}`;
  }
  if (!("result" in message) && !("error" in message)) return "it has neither a result nor an error";
  if (message.jsonrpc !== "2.0") return "it is not JSON-RPC 2.0";
  return undefined;
}

/** A line quoted in a log or an error: its start only. */
export function clip(line: string): string {
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
