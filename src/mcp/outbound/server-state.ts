import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writePrivateFileAtomically } from "../../fs/write-private-file.ts";
import { redact } from "../../observability/redact.ts";
import type { McpTool } from "../../plugins/mcp-rail/mcp-tool.ts";
import { createToolCache } from "../../plugins/mcp-rail/tool-cache.ts";
import type { OutboundServer } from "./server-config.ts";

/** Where `[mcp.servers]` discoveries are remembered: `$FERMIX_HOME/mcp/servers/`. */
export const stateDir = (home: string) => join(home, "mcp", "servers");

const StateFile = v.object({
  version: v.literal(1),
  fingerprint: v.string(),
  /** `unreachable`: a one-shot ask's bounded first discovery did not finish. */
  state: v.picklist(["starting", "ready", "quarantined", "unreachable"]),
  reason: v.optional(v.string()),
  attempt: v.optional(v.number()),
  max_attempts: v.optional(v.number()),
  tools: v.optional(v.number()),
  at: v.string(),
  pid: v.number(),
  role: v.picklist(["daemon", "oneshot"]),
});
export type ServerState = v.InferOutput<typeof StateFile>;

export type ServerMemory = {
  /** The tools the server last listed, if it was configured exactly as it is now. */
  tools(server: OutboundServer): McpTool[] | undefined;
  writeTools(server: OutboundServer, tools: readonly McpTool[]): void;
  /** What the last process that ran the server saw of it, if it was configured as it is now. */
  state(server: OutboundServer): ServerState | undefined;
  writeState(server: OutboundServer, state: Omit<ServerState, "version" | "fingerprint" | "at" | "pid">): void;
};

/**
 * What this home remembers of each configured server between processes: its last tool list (a one-shot ask offers
 * it without starting the server) and its last state (a failed first discovery, so the next asks do not wait for
 * it again; the daemon's live status, for `fermix doctor`). Unreadable or stale files are simply not used.
 */
export function createServerMemory(home: string, now: () => number = Date.now): ServerMemory {
  const dir = stateDir(home);
  const cache = createToolCache(dir, now);
  const key = (server: OutboundServer) => ({
    name: `mcp_${server.name}`,
    version: server.fingerprint,
    dir: server.configName,
  });
  const stateFile = (server: OutboundServer) => join(dir, `mcp_${server.name}.state.json`);
  return {
    tools: (server) => cache.read(key(server)),
    writeTools: (server, tools) => cache.write(key(server), tools),
    state(server) {
      try {
        const parsed = v.safeParse(StateFile, JSON.parse(readFileSync(stateFile(server), "utf8")));
        return parsed.success && parsed.output.fingerprint === server.fingerprint ? parsed.output : undefined;
      } catch {
        return undefined;
      }
    },
    writeState(server, state) {
      const body: ServerState = {
        version: 1,
        fingerprint: server.fingerprint,
        at: new Date(now()).toISOString(),
        pid: process.pid,
        ...state,
        // Read by other processes (doctor, the next ask) that never resolved this server's secrets: a reason quoting
        // a refused bearer leaves this one redacted.
        ...(state.reason !== undefined ? { reason: redact(state.reason) } : {}),
      };
      try {
        writePrivateFileAtomically(stateFile(server), `${JSON.stringify(body)}\n`);
      } catch {
        // Losing it costs the next ask one bounded wait, or doctor one detail.
      }
    },
  };
}
