import type { ToolSpec } from "../types.ts";
import { fail } from "./_failure.ts";

/**
 * What a Claude subscription token requires of a request: Anthropic serves these tokens only to requests
 * shaped like Claude Code's own — its identity headers, its system block first, and tool names in the
 * `mcp_` namespace Claude Code gives to tools it did not define itself.
 */
export const CLAUDE_CODE_SYSTEM = "You are Claude Code, Anthropic's official CLI for Claude.";

export const CLAUDE_CODE_HEADERS: Record<string, string> = {
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
  "user-agent": "claude-cli/2.1.74 (external, cli)",
  "x-app": "cli",
};

const PREFIX = "mcp_";

/** Maps tool names onto the wire and back for one request. */
export type ToolNames = { toWire(name: string): string; fromWire(name: string): string };

export const PLAIN_NAMES: ToolNames = { toWire: (n) => n, fromWire: (n) => n };

/**
 * Every name gets `mcp_` unless it already has it (fermix's own outbound MCP tools do). Two names that
 * would meet on the wire (`x` and `mcp_x`) cannot be told apart on the way back, so they are refused.
 */
export function prefixedNames(provider: string, tools: ToolSpec[] | undefined, historyNames: string[]): ToolNames {
  const back = new Map<string, string>();
  const add = (name: string) => {
    const wire = name.startsWith(PREFIX) ? name : `${PREFIX}${name}`;
    const earlier = back.get(wire);
    if (earlier !== undefined && earlier !== name) {
      fail(
        provider,
        "invalid_request",
        `${provider}: tools "${earlier}" and "${name}" both become "${wire}" on a Claude subscription sign-in; rename one`,
      );
    }
    back.set(wire, name);
  };
  for (const t of tools ?? []) add(t.name);
  for (const name of historyNames) add(name);
  return {
    toWire: (name) => (name.startsWith(PREFIX) ? name : `${PREFIX}${name}`),
    // A name the request never offered is still unprefixed, so the tool loop reports it as unknown by its own name.
    fromWire: (name) => back.get(name) ?? (name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name),
  };
}
