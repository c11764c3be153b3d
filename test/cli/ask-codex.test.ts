import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCodex } from "../fake/codex.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { chatgptJwt } from "../providers/_sign-in.ts";

const defer = cleanupAfterEach();
const ACCOUNT = "acct-compiled-42";

describe("fermix ask on a ChatGPT plan (compiled binary)", () => {
  test("openai_codex primary: the signed-in token from auth.json reaches the Codex endpoint with its headers", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const token = chatgptJwt(ACCOUNT);
    const fake = await startFakeCodex({ accessToken: token, accountId: ACCOUNT });
    defer(() => fake.close());
    fake.enqueue({ kind: "text", text: "Hello from your ChatGPT plan." });
    h.writeConfig(
      [
        "[fermix_core.providers.openai_codex]",
        "primary = true",
        `base_url = "${fake.baseUrl}"`,
        'reasoning_effort = "low"',
        "fast = true",
      ].join("\n"),
    );
    // auth.json as `fermix auth login --provider codex` leaves it: version 2, the profile under providers, 0600.
    mkdirSync(h.home, { recursive: true, mode: 0o700 });
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const entry = {
      auth_mode: "oauth_pkce",
      tokens: { access_token: token, refresh_token: "rt-unused" },
      expires_at: expires,
      status: "ready",
    };
    writeFileSync(join(h.home, "auth.json"), JSON.stringify({ version: 2, providers: { openai_codex: entry } }), {
      mode: 0o600,
    });

    const asked = await runFermix(["ask", "--no-daemon", "say hello"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome },
    });
    expect(asked.stderr).not.toContain(token);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain("Hello from your ChatGPT plan.");
    const sent = fake.requests.find((r) => r.path === "/backend-api/codex/responses")!;
    expect(sent.headers).toMatchObject({
      authorization: `Bearer ${token}`,
      "chatgpt-account-id": ACCOUNT,
      originator: "pi",
      "openai-beta": "responses=experimental",
    });
    expect(sent.body).toMatchObject({ model: "gpt-5.5", store: false, stream: true, service_tier: "priority" });
    expect(sent.body.reasoning).toEqual({ effort: "low", summary: "auto" });
  });

  test("no sign-in: the ask fails with the sentence that says how to sign in, and nothing is sent", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeCodex({ accessToken: "x", accountId: ACCOUNT });
    defer(() => fake.close());
    h.writeConfig(
      ["[fermix_core.providers.openai_codex]", "primary = true", `base_url = "${fake.baseUrl}"`].join("\n"),
    );
    const asked = await runFermix(["ask", "--no-daemon", "say hello"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome },
    });
    expect(asked.code).not.toBe(0);
    expect(asked.stderr).toContain("fermix auth login --provider codex");
    expect(fake.requests).toHaveLength(0);
  });
});
