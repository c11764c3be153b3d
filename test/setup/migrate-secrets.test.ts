import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const MAIN = join(import.meta.dir, "../../src/main.ts");
const SECRETS = {
  openai: "sk-proj-migrate-me-0123456789abcdef",
  slack: "xoxb-migrate-me-0123456789",
  google: "GOCSPX-migrate-me-0123456789",
  brave: "BSA-migrate-me-0123456789",
};

const CONFIG = `# my config, with a comment to keep
[fermix_core]
secret_store = "file"

[fermix_core.providers.openai]
primary = true
api_key = "${SECRETS.openai}"   # pasted by hand

[fermix_core.providers.anthropic]
api_key = "$ANTHROPIC_API_KEY"

[fermix_core.plugin_secrets]
slack = "${SECRETS.slack}"

[fermix_core.oauth.google]
client_id = "id-google"
client_secret = "${SECRETS.google}"

[fermix_core.tools.web_search]
backend = "brave"
api_key = "${SECRETS.brave}"
`;

describe("fermix setup --migrate-secrets", () => {
  test("moves every plaintext secret to the store, leaves @keyring in its place and everything else as written", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const file = h.writeConfig(CONFIG);
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, PATH: "/usr/bin:/bin" };
    const first = await runCommand([process.execPath, MAIN, "setup", "--migrate-secrets"], { env });
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split("\n")).toEqual([
      `fermix: moved [fermix_core.providers.openai] api_key to the file store (${h.home}/secrets, 0600) as OPENAI_API_KEY; config.toml now says "@keyring"`,
      `fermix: moved [fermix_core.plugin_secrets] slack to the file store (${h.home}/secrets, 0600) as PLUGIN_SLACK_API_KEY; config.toml now says "@keyring"`,
      `fermix: moved [fermix_core.oauth.google] client_secret to the file store (${h.home}/secrets, 0600) as OAUTH_GOOGLE_CLIENT_SECRET; config.toml now says "@keyring"`,
      `fermix: moved [fermix_core.tools.web_search] api_key to the file store (${h.home}/secrets, 0600) as BRAVE_API_KEY; config.toml now says "@keyring"`,
    ]);
    const text = readFileSync(file, "utf8");
    for (const value of Object.values(SECRETS)) {
      expect(text).not.toContain(value);
      expect(first.stdout + first.stderr).not.toContain(value);
    }
    expect(text).toContain("# my config, with a comment to keep");
    expect(text).toContain('api_key = "@keyring"   # pasted by hand');
    expect(text).toContain('api_key = "$ANTHROPIC_API_KEY"');
    const config = parseConfig(text, file);
    expect(config.fermix_core?.plugin_secrets?.slack).toBe("@keyring");
    const dir = join(h.home, "secrets");
    expect(readdirSync(dir).sort()).toEqual([
      "BRAVE_API_KEY",
      "OAUTH_GOOGLE_CLIENT_SECRET",
      "OPENAI_API_KEY",
      "PLUGIN_SLACK_API_KEY",
    ]);
    expect(readFileSync(join(dir, "OPENAI_API_KEY"), "utf8").trim()).toBe(SECRETS.openai);
    expect(statSync(join(dir, "OPENAI_API_KEY")).mode & 0o777).toBe(0o600);

    const again = await runCommand([process.execPath, MAIN, "setup", "--migrate-secrets"], { env });
    expect(again).toMatchObject({ code: 0, stdout: `fermix: ${file} holds no plaintext secrets; nothing to move\n` });
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("migrateSecrets", () => {
  test("a secret the store refuses keeps its plaintext line and says why; the others still move", async () => {
    const { migrateSecrets } = await import("../../src/setup/migrate-secrets.ts");
    const { createSecretStore } = await import("../../src/config/secret-store.ts");
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const file = h.writeConfig(CONFIG);
    const real = createSecretStore({ secretsDir: join(h.home, "secrets"), prefer: "file" });
    const store = {
      ...real,
      store: async (slot: string, value: string) => {
        if (slot === "BRAVE_API_KEY") throw new Error("the keyring is locked");
        return real.store(slot, value);
      },
    };
    const result = await migrateSecrets({
      file,
      store,
      secrets: { env: {}, secretsDir: join(h.home, "secrets") },
    });
    expect(result.moved.map((m) => m.slot)).toEqual([
      "OPENAI_API_KEY",
      "PLUGIN_SLACK_API_KEY",
      "OAUTH_GOOGLE_CLIENT_SECRET",
    ]);
    expect(result.failed).toEqual([
      { table: "fermix_core.tools.web_search", key: "api_key", slot: "BRAVE_API_KEY", reason: "the keyring is locked" },
    ]);
    const text = readFileSync(file, "utf8");
    expect(text).toContain(`api_key = "${SECRETS.brave}"`);
    expect(text).not.toContain(SECRETS.openai);
  });
});
