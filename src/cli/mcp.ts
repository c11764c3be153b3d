import { processEnv } from "../config/env.ts";
import { defineCommand } from "./command.ts";
import { EXIT } from "./exit.ts";

/** `fermix mcp …`: fermix and the Model Context Protocol. `serve` makes fermix an MCP server for a client. */
export default defineCommand({
  meta: { name: "mcp", description: "Use fermix from MCP clients (Claude Desktop, Claude Code, Cursor…)" },
  subCommands: {
    serve: defineCommand({
      meta: {
        name: "serve",
        description: "Serve MCP on stdin/stdout (an MCP client starts this)",
        details:
          "Needs [mcp.inbound] enabled = true. Exposes `ask` (a turn, through the daemon when it runs) and the " +
          "built-ins [mcp.inbound] allows, sandboxed as in a turn. Logs go to fermix.log; stdout is the protocol's.",
        examples: ["fermix mcp serve"],
      },
      async run() {
        const { serveStdio } = await import("../mcp/inbound/stdio.ts");
        await serveStdio(processEnv());
        return EXIT.ok;
      },
    }),
  },
});
