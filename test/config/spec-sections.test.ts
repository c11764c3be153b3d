import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { migrate } from "../../src/memory/db.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import { reviewSettings } from "../../src/memory/memory-settings.ts";
import { createReview } from "../../src/memory/review.ts";
import { oauthClientState, setOAuthClient } from "../../src/plugins/oauth/client-config.ts";
import { oauthProvider } from "../../src/plugins/oauth/providers.ts";
import { resolveRoutes } from "../../src/providers/routes.ts";
import { currentPrimary } from "../../src/setup/answers.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const FILE = "/home/u/.fermix/config.toml";
const defer = cleanupAfterEach();

function errorOf(toml: string): string {
  try {
    parseConfig(toml, FILE);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected the config to be rejected");
}

describe("[fermix_core.memory]", () => {
  test("the review's schedule and limits parse; a bad value names the key", () => {
    const config = parseConfig(
      "[fermix_core.memory]\nreview_enabled = false\nreview_interval_hours = 6\nreview_retry_minutes = 15\nreview_max_changes = 20\n",
      FILE,
    );
    expect(reviewSettings(config.fermix_core?.memory)).toEqual({
      intervalMs: 6 * 3_600_000,
      retryAfterMs: 15 * 60_000,
      maxChanges: 20,
    });
    expect(reviewSettings(undefined)).toEqual({});
    expect(errorOf("[fermix_core.memory]\nreview_interval_hours = 0\n")).toContain(
      "[fermix_core.memory] review_interval_hours",
    );
    expect(errorOf("[fermix_core.memory]\nreview_every = 1\n")).toContain('unknown key "review_every"');
  });

  test("the configured gate, retry delay and change cap are what the review uses", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const dir = join(h.home, "memory", "main");
    mkdirSync(dir, { recursive: true });
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let t = Date.UTC(2025, 2, 1, 12);
    const answers: string[] = [];
    const review = createReview({
      db,
      now: () => t,
      complete: async () => answers.shift() ?? "{}",
      paths: { userMd: join(dir, "USER.md"), memoryMd: join(dir, "MEMORY.md") },
      settings: { intervalMs: 3_600_000, retryAfterMs: 60_000, maxChanges: 1 },
    });
    createMemoryStore(db, () => t).store({ scope: "owner", category: "preference", key: "k", value: "v", source: "t" });
    expect((await review.maybeRun()).status).toBe("done");
    t += 30 * 60_000;
    expect(await review.maybeRun()).toMatchObject({
      status: "skipped",
      reason: "the last review was less than 1 hour ago",
    });
    t += 30 * 60_000;
    answers.push(JSON.stringify({ retire: ["a", "b"] }));
    const over = await review.maybeRun();
    expect(over).toMatchObject({ status: "failed", nextAt: t + 60_000 });
    expect(over.status === "failed" && over.error).toContain("over the limit of 1");
    t += 60_000;
    expect((await review.maybeRun()).status).toBe("done");
  });
});

test("a slack OAuth client is stored like the others: the id in config.toml, the secret as @keyring", async () => {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const file = h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
  const store = createSecretStore({ secretsDir: join(h.home, "secrets"), prefer: "file" });
  await setOAuthClient(file, store, {
    provider: "slack",
    clientId: "123.456",
    clientSecret: "slack-client-secret-0123",
  });
  const text = readFileSync(file, "utf8");
  expect(text).toContain('[fermix_core.oauth.slack]\nclient_id = "123.456"\nclient_secret = "@keyring"');
  expect(text).not.toContain("slack-client-secret-0123");
  expect(oauthClientState(parseConfig(text, file), store, "slack")).toEqual({ clientId: "123.456", secret: "set" });
  expect(oauthProvider("slack").tokenUrl).toBe("https://slack.com/api/oauth.v2.access");
});

describe("legacy [fermix_core.agent] provider", () => {
  const secrets = { env: {}, secretsDir: "/nonexistent", run: () => ({ ok: false, stdout: "" }) };
  const ids = (routes: { descriptor: { id: string } }[]) => routes.map((r) => r.descriptor.id);

  test("chooses the primary when no block says primary = true", () => {
    const config = parseConfig(
      '[fermix_core.agent]\nprovider = "anthropic"\n[fermix_core.providers.openai]\napi_key = "o"\n[fermix_core.providers.anthropic]\napi_key = "a"\n',
      FILE,
    );
    expect(ids(resolveRoutes(config, {}, secrets))).toEqual(["anthropic", "openai"]);
    expect(currentPrimary(config)).toBe("anthropic");
  });

  test("a primary flag wins over it, and a provider it names that is not configured is passed over", () => {
    const flagged = parseConfig(
      '[fermix_core.agent]\nprovider = "anthropic"\n[fermix_core.providers.openai]\napi_key = "o"\nprimary = true\n[fermix_core.providers.anthropic]\napi_key = "a"\n',
      FILE,
    );
    expect(ids(resolveRoutes(flagged, {}, secrets))).toEqual(["openai", "anthropic"]);
    expect(currentPrimary(flagged)).toBe("openai");
    const absent = parseConfig(
      '[fermix_core.agent]\nprovider = "xai"\n[fermix_core.providers.openai]\napi_key = "o"\n',
      FILE,
    );
    expect(ids(resolveRoutes(absent, {}, secrets))).toEqual(["openai"]);
    expect(currentPrimary(absent)).toBe("openai");
  });

  test("an unknown value fails loud at load, naming the key and the known providers", () => {
    expect(errorOf('[fermix_core.agent]\nprovider = "gpt"\n')).toBe(
      `${FILE}: [fermix_core.agent] provider: expected one of openai_codex, openai, anthropic, xai, openrouter, mistral, ollama, got "gpt"`,
    );
  });
});
