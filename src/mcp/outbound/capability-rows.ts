import type { Config } from "../../config/schema.ts";
import { outboundServers } from "./server-config.ts";
import { createServerMemory } from "./server-state.ts";
import { classFor } from "./tools.ts";

/**
 * The `[mcp.servers]` tools for `fermix capabilities`: each enabled server's tools as its last discovery (by the
 * daemon or an ask) listed them, with the class the owner gave them. Nothing is started to list them.
 */
export function mcpCapabilityRows(home: string, config: Config) {
  const memory = createServerMemory(home);
  return outboundServers(config)
    .filter((server) => server.enabled && !server.problem)
    .flatMap((server) =>
      (memory.tools(server) ?? []).map((tool) => {
        const policy = classFor(server, tool);
        return {
          name: tool.name,
          kind: "mcp" as const,
          description: tool.description.split("\n")[0]!.slice(0, 200),
          policy,
          read_only: policy === "read_only",
        };
      }),
    );
}
