import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { providersCheck } from "../../src/doctor/providers-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const CLAUDE_TOKEN = "sk-ant-oat01-doctor-0123456789";

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

/** auth.json as `fermix auth login` writes it (version 2, one entry per profile, 0600). */
function writeAuth(file: string, profiles: Record<string, string>) {
  const providers = Object.fromEntries(
    Object.entries(profiles).map(([profile, token]) => [
      profile,
      { auth_mode: "oauth_pkce", tokens: { access_token: token, refresh_token: `${token}-refresh` } },
    ]),
  );
  writeFileSync(file, JSON.stringify({ version: 2, providers }), { mode: 0o600 });
}

describe("doctor: signed-in providers", () => {
  test("Codex and Anthropic OAuth are probed with the profile's token, never as missing keys", async () => {
    const h = home();
    const anthropic = await startFakeModelApi({
      flavor: "anthropic",
      apiKey: CLAUDE_TOKEN,
      models: ["claude-sonnet-4-6"],
    });
    defer(() => anthropic.close());
    h.writeConfig(
      [
        "[fermix_core.providers.anthropic]",
        'auth_mode = "oauth"',
        `base_url = "${anthropic.baseUrl}"`,
        "[fermix_core.providers.openai_codex]",
        "primary = true",
        "fast = true",
      ].join("\n"),
    );
    writeAuth(join(h.home, "auth.json"), { openai_codex: "chatgpt-token", anthropic_oauth: CLAUDE_TOKEN });
    const report = await runDoctor(doctorDeps(h), [providersCheck]);
    expect(report.rows.map((r) => [r.id, r.status])).toEqual([
      ["providers", "ok"],
      ["providers.openai_codex", "ok"],
      ["providers.anthropic", "ok"],
    ]);
    expect(report.rows[0]!.detail).toBe("primary openai_codex; fallbacks in order: anthropic");
    expect(report.rows[1]!.detail).toContain(
      "openai_codex (primary): gpt-5.5 at https://chatgpt.com/backend-api/codex: signed in",
    );
    expect(report.rows[2]!.detail).toContain("signed in");
    const seen = anthropic.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${CLAUDE_TOKEN}`);
    expect(seen.headers["anthropic-beta"]).toContain("oauth-2025-04-20");
    const text = JSON.stringify(report);
    expect(text).not.toContain(CLAUDE_TOKEN);
    expect(text).not.toContain("chatgpt-token");
  });

  test("no sign-in: the row says so and how to sign in", async () => {
    const h = home();
    h.writeConfig(["[fermix_core.providers.openai_codex]", "primary = true"].join("\n"));
    const report = await runDoctor(doctorDeps(h), [providersCheck]);
    const row = report.rows.find((r) => r.id === "providers.openai_codex")!;
    expect(row.status).toBe("fail");
    expect(row.detail).toContain("not logged in");
    expect(row.fix).toBe("sign in again: fermix auth login --provider codex");
  });
});
