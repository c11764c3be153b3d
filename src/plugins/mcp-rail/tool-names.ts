/** Provider tool-name limits are the tightest common ground: `[a-z0-9_]`, at most 64 bytes. */
export const MAX_TOOL_NAME_BYTES = 64;

/**
 * An MCP tool name as a fermix tool name: `<plugin>_<tool>` in `[a-z0-9_]`, at most 64 bytes.
 * camelCase and separators become underscores (`get-sum` → `get_sum`, `getSum` → `get_sum`).
 *
 * @example sanitiseToolName("everything", "get-sum") // "everything_get_sum"
 */
export function sanitiseToolName(plugin: string, mcpName: string): string {
  const tail = mcpName
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  return `${plugin}_${tail || "tool"}`.slice(0, MAX_TOOL_NAME_BYTES).replace(/_+$/, "");
}

/**
 * Sanitised names for a server's whole tool list, in order. Two MCP names can collapse to one (`a-b`, `a_b`)
 * or share a 64-byte prefix; later ones get `_2`, `_3`, … so every fermix name stays unique and in bounds.
 */
export function toolNames(plugin: string, mcpNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return mcpNames.map((mcpName) => {
    const base = sanitiseToolName(plugin, mcpName);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_TOOL_NAME_BYTES - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}
