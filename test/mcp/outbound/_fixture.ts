import { join } from "node:path";
import { createApp } from "../../../src/app.ts";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import type { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { type TempHome, tempHome } from "../../fixture/home.ts";

export const KEY = "sk-test-mcp-outbound-0123456789";
export const operator = { trust: "operator" as const, local: true, attended: true };
export const guest = { trust: "guest" as const, local: false, attended: true };

const modules = join(import.meta.dir, "../../../node_modules/@modelcontextprotocol");
/** The MCP reference servers from node_modules, run with node over stdio. */
export const EVERYTHING = join(modules, "server-everything/dist/index.js");
export const FILESYSTEM = join(modules, "server-filesystem/dist/index.js");
export const FAKE_STDIO = join(import.meta.dir, "../../plugins/mcp-rail/fake-mcp-server.mjs");

/** A TOML table for one `[mcp.servers.<name>]` server. */
export function serverToml(name: string, keys: Record<string, unknown>): string {
  const lines = [`[mcp.servers.${name}]`];
  for (const [key, value] of Object.entries(keys)) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const inner = Object.entries(value).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
      lines.push(`${key} = { ${inner.join(", ")} }`);
    } else lines.push(`${key} = ${JSON.stringify(value)}`);
  }
  return `${lines.join("\n")}\n`;
}

export function envOf(h: TempHome, baseUrl: string): Record<string, string> {
  return {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: baseUrl,
  };
}

/** A temp home with a fake model and the given config; `app()` builds an in-process app closed after the test. */
export async function setup(
  defer: ReturnType<typeof cleanupAfterEach>,
  config: string,
  extraEnv: Record<string, string> = {},
) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  h.writeConfig(config);
  const app = (role?: "daemon") =>
    createApp({ env: { ...envOf(h, llm.baseUrl), ...extraEnv }, role }).then((a) => {
      defer(() => a.close());
      return a;
    });
  return { h, llm, app };
}

export const offeredIn = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name);
export const NO_DEFERRAL = "[fermix_core.tools.tool_search]\nenabled = false\n";
