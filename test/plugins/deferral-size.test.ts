import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { createTokenStore } from "../../src/plugins/oauth/token-store.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { pluginContextFor } from "./_context.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-deferral-0123456789";
const API_KEY_PLUGINS = ["slack", "discord", "agentmail"];
const OAUTH_PLUGINS: Record<string, string> = {
  github: "github",
  notion: "notion",
  x: "x",
  gmail: "google",
  google_calendar: "google",
  google_drive: "google",
};
const ALL = [...API_KEY_PLUGINS, ...Object.keys(OAUTH_PLUGINS), "obsidian"];

/** Every catalog plugin installed and ready: keys stored, OAuth clients and tokens in place, the vault set. */
async function everythingReady(toolSearch: boolean) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  const vault = join(h.userHome, "vault");
  mkdirSync(vault);
  mkdirSync(join(h.home, "secrets"), { recursive: true, mode: 0o700 });
  for (const name of API_KEY_PLUGINS) {
    writeFileSync(join(h.home, "secrets", `PLUGIN_${name.toUpperCase()}_API_KEY`), `key-for-${name}`, { mode: 0o600 });
  }
  const providers = [...new Set(Object.values(OAUTH_PLUGINS))];
  h.writeConfig(
    [
      "[fermix_core.plugins]",
      `enabled = [${ALL.map((n) => `"${n}"`).join(", ")}]`,
      "[fermix_core.plugins.obsidian]",
      `VAULT_PATH = "${vault}"`,
      "[fermix_core.plugin_secrets]",
      ...API_KEY_PLUGINS.map((n) => `${n} = "@keyring"`),
      ...providers.map((p) => `[fermix_core.oauth.${p}]\nclient_id = "id-${p}"\nclient_secret = "secret-${p}"`),
      `[fermix_core.tools.tool_search]\nenabled = ${toolSearch}`,
    ].join("\n"),
  );
  const app = await createApp({
    env: {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      PATH: process.env.PATH,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: llm.baseUrl,
    },
  });
  defer(() => app.close());
  const host = await pluginContextFor(app);
  for (const name of ["slack", "discord", "agentmail", "github", "notion", "x", "obsidian"]) await host.install(name);
  const tokens = createTokenStore(app.paths.auth);
  for (const [name, provider] of Object.entries(OAUTH_PLUGINS)) {
    await tokens.put(name, {
      provider,
      access_token: `token-${name}`,
      scopes: [],
      obtained_at: new Date().toISOString(),
    });
  }
  return { app, llm };
}

describe("tool-schema deferral with every catalog plugin ready", () => {
  test("the provider's tool list is at least 75% smaller, and every plugin and on-request built-in is still named in the prompt", async () => {
    const off = await everythingReady(false);
    const on = await everythingReady(true);
    const caller = { trust: "operator" as const, local: true, attended: true };
    await off.app.ask({ key: { channel: "cli", chat: "a" }, caller, text: "hi" });
    await on.app.ask({ key: { channel: "cli", chat: "a" }, caller, text: "hi" });
    const bodyOff = off.llm.requests[0]!.body;
    const bodyOn = on.llm.requests[0]!.body;
    const pluginToolsOff = (bodyOff.tools as any[]).filter((t) => ALL.some((p) => t.name.startsWith(`${p}_`)));
    expect(new Set(pluginToolsOff.map((t) => t.name.split("_")[0]))).toEqual(
      new Set(["slack", "discord", "agentmail", "github", "notion", "x", "gmail", "google", "obsidian"]),
    );
    const sizeOff = JSON.stringify(bodyOff.tools).length;
    const sizeOn = JSON.stringify(bodyOn.tools).length;
    console.log(
      `tool list: ${sizeOff} bytes with deferral off, ${sizeOn} on (${(100 * (1 - sizeOn / sizeOff)).toFixed(1)}% smaller)`,
    );
    // Issue 27 put the everyday built-ins back on the wire (one round trip to use): from ~82% to ~75% smaller.
    expect(sizeOn / sizeOff).toBeLessThanOrEqual(0.25);
    // What stays on the wire is the everyday built-ins and the three bridges; the rest is named in the prompt.
    const sentOn = (bodyOn.tools as any[]).map((t) => t.name);
    expect(sentOn).toContain("tool_search");
    expect(sentOn).toContain("file_read");
    expect(sentOn.some((n) => ALL.some((p) => n.startsWith(`${p}_`)))).toBe(false);
    expect(bodyOn.instructions).toContain("### On request");
    expect(bodyOn.instructions).toContain("- update_job: ");
    for (const name of ALL) expect(bodyOn.instructions).toContain(`- ${name}: ${name}_`);
  }, 60_000);
});
