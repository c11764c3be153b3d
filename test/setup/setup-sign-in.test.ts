import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { FermixError } from "../../src/error.ts";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { pipedIo, setupWorld, snapshot } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const CLAUDE_TOKEN = "sk-ant-oat01-setup-0123456789";

function writeAuth(file: string, profiles: Record<string, string>) {
  const providers = Object.fromEntries(
    Object.entries(profiles).map(([p, token]) => [p, { auth_mode: "oauth_pkce", tokens: { access_token: token } }]),
  );
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify({ version: 2, providers }), { mode: 0o600 });
}

async function failure(promise: Promise<unknown>): Promise<FermixError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FermixError) return err;
    throw err;
  }
  throw new Error("expected setup to fail");
}

const BASE = { userName: "Ada", nonInteractive: true, service: false };

describe("fermix setup with providers that sign in", () => {
  test("openai_codex without a sign-in says to run fermix auth login --provider codex and writes nothing", async () => {
    const w = setupWorld(defer);
    const before = snapshot(w.h.home);
    const err = await failure(w.run({ ...BASE, provider: "openai_codex" }, pipedIo().io));
    expect(err.code).toBe("auth_not_logged_in");
    expect(err.message).toContain("run fermix auth login --provider codex, then fermix setup again");
    expect(snapshot(w.h.home)).toEqual(before);
  });

  test("openai_codex with a sign-in: no key asked or written, made primary", async () => {
    const w = setupWorld(defer);
    writeAuth(w.paths.auth, { openai_codex: "chatgpt-token" });
    const out = pipedIo();
    await w.run({ ...BASE, provider: "openai_codex" }, out.io);
    const config = readFileSync(w.paths.config, "utf8");
    expect(config).toContain('[fermix_core.providers.openai_codex]\nprimary = true\ndefault_model = "gpt-5.5"\n');
    expect(config).not.toContain("api_key");
    expect(out.output()).toContain("signed in");
    expect(out.output()).toContain(
      "API key: none; OpenAI Codex (ChatGPT plan) uses the sign-in of fermix auth login --provider codex",
    );
    expect(out.output()).not.toContain("chatgpt-token");

    const keyed = await w.run({ ...BASE, provider: "openai_codex", apiKeyEnv: "HOME" }, pipedIo().io).catch((e) => e);
    expect(String(keyed.message)).toContain("takes no API key");
  });

  test("anthropic with auth_mode = oauth is tested with the profile's token and asks for no key", async () => {
    const w = setupWorld(defer);
    const api = await startFakeModelApi({ flavor: "anthropic", apiKey: CLAUDE_TOKEN, models: ["claude-sonnet-4-6"] });
    defer(() => api.close());
    w.h.writeConfig(
      ["[fermix_core.providers.anthropic]", 'auth_mode = "oauth"', `base_url = "${api.baseUrl}"`].join("\n"),
    );
    writeAuth(w.paths.auth, { anthropic_oauth: CLAUDE_TOKEN });
    const out = pipedIo();
    await w.run({ ...BASE, provider: "anthropic" }, out.io);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${CLAUDE_TOKEN}`);
    const config = readFileSync(w.paths.config, "utf8");
    expect(config).toContain('auth_mode = "oauth"');
    expect(config).toContain("primary = true");
    expect(config).not.toContain("api_key");
    expect(out.output()).not.toContain(CLAUDE_TOKEN);
  });
});
