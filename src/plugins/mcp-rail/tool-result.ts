/** What a plugin tool call gives the agent: text the model can read, and whether the tool reported an error. */
export type McpCallResult = { content: string; isError?: boolean };

type Item = { type?: unknown; [key: string]: unknown };

/**
 * An MCP CallToolResult as text. Text parts are joined; binary parts (images, audio, blobs) are described
 * rather than inlined, since base64 in a prompt costs tokens and tells the model nothing.
 */
export function toCallResult(result: Record<string, unknown>): McpCallResult {
  const items = Array.isArray(result.content) ? (result.content as Item[]) : [];
  const parts = items.map(describe).filter((p) => p !== "");
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  // Old servers answer with `toolResult` instead of content.
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(stringify(result.toolResult));
  const out: McpCallResult = { content: parts.join("\n") };
  if (result.isError === true) out.isError = true;
  return out;
}

function describe(item: Item): string {
  switch (item.type) {
    case "text":
      return String(item.text ?? "");
    case "image":
    case "audio":
      return `[${item.type} ${String(item.mimeType ?? "")}, ${base64Bytes(item.data)} bytes]`;
    case "resource_link":
      return `[resource ${String(item.name ?? "")} ${String(item.uri ?? "")}]`.replace("  ", " ");
    case "resource": {
      const r = (item.resource ?? {}) as Item;
      if (typeof r.text === "string") return r.text;
      return `[resource ${String(r.uri ?? "")} ${String(r.mimeType ?? "")}, ${base64Bytes(r.blob)} bytes]`;
    }
    default:
      return `[${String(item.type)} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
