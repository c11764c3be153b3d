// Bun's hasher (runtime/hash.ts): node:crypto costs a one-shot ask ~7 ms just to load.

import { MAX_TOOL_NAME_BYTES } from "../../plugins/mcp-rail/tool-names.ts";
import { sha256Hex } from "../../runtime/hash.ts";

const hash8 = (text: string) => sha256Hex(text).slice(0, 8);

/** An MCP tool name in `[a-z0-9_]`, by the plugin rail's rules: `get-sum` and `getSum` both become `get_sum`. */
function sanitiseTail(mcpName: string): string {
  return (
    mcpName
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, "_")
      .replace(/_+/g, "_")
      .replace(/^_|_$/g, "") || "tool"
  );
}

/** `<name cut to fit>_<8 hex of seed>`, within the 64-byte limit. */
function hashed(name: string, seed: string): string {
  const suffix = `_${hash8(seed)}`;
  return `${name.slice(0, MAX_TOOL_NAME_BYTES - suffix.length).replace(/_+$/, "")}${suffix}`;
}

/**
 * fermix names for an `[mcp.servers]` server's tools: `mcp_<server>_<tool>` in `[a-z0-9_]`, at most 64 bytes.
 * A name that had to be cut, or that an earlier tool of the list already took, ends in 8 hex of the MCP name's
 * sha256: unlike a counter, that does not change when the server reorders its list.
 *
 * @example outboundToolNames("everything", ["get-sum"]) // ["mcp_everything_get_sum"]
 */
export function outboundToolNames(server: string, mcpNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return mcpNames.map((mcpName) => {
    const full = `mcp_${server}_${sanitiseTail(mcpName)}`;
    let name = full.length <= MAX_TOOL_NAME_BYTES ? full : hashed(full, mcpName);
    for (let n = 1; taken.has(name); n++) name = hashed(full, n === 1 ? mcpName : `${mcpName}#${n}`);
    taken.add(name);
    return name;
  });
}
