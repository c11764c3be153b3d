import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { createModelListing } from "../../src/providers/model-listing.ts";
import { startFakeModelListingApi } from "../fake/model-listing-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("Ollama's installed models", () => {
  test("one GET /api/tags on the server root of the configured /v1 URL; the installed names", async () => {
    const fake = await startFakeModelListingApi({ ollama: ["llama3.2:latest", "qwen3:8b"] });
    defer(() => fake.close());
    const listing = createModelListing();
    expect(await listing.ollama(fake.ollamaBaseUrl)).toEqual({ ok: true, models: ["llama3.2:latest", "qwen3:8b"] });
    expect(await listing.ollama(`${fake.origin}/`)).toMatchObject({ ok: true });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/tags", "GET /api/tags"]);
  });

  test("nothing listening: the error with `ollama serve` and the install link", async () => {
    const port = await closedPort();
    const got = await createModelListing().ollama(`http://127.0.0.1:${port}/v1`);
    expect(got.ok).toBe(false);
    if (got.ok) return;
    expect(got.error).toContain(`Ollama is not answering at http://127.0.0.1:${port}`);
    expect(got.error).toContain("ollama serve");
    expect(got.error).toContain("https://ollama.com/download");
  });

  test("an error status or a body that is not Ollama's is a failure, never a crash", async () => {
    const fake = await startFakeModelListingApi({ ollama: ["llama3.2"], mode: "error" });
    defer(() => fake.close());
    const listing = createModelListing();
    const failed = await listing.ollama(fake.ollamaBaseUrl);
    expect(failed).toMatchObject({ ok: false });
    expect(!failed.ok && failed.error).toContain("HTTP 500 (llama runner process has terminated)");
    fake.setMode("malformed");
    const odd = await listing.ollama(fake.ollamaBaseUrl);
    expect(!odd.ok && odd.error).toContain("did not answer /api/tags as Ollama does");
  });

  test("a server that never answers is given up on at the timeout", async () => {
    const hanging = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    defer(() => hanging.stop(true));
    const got = await createModelListing({ timeoutMs: 200 }).ollama(`http://127.0.0.1:${hanging.port}`);
    expect(got).toMatchObject({ ok: false });
    expect(!got.ok && got.error).toContain("within 0.2 s");
  });
});

describe("OpenRouter's live catalogue", () => {
  const CATALOGUE = [
    { id: "anthropic/claude-sonnet-4.6", created: 1_760_000_000, tools: true },
    { id: "openai/gpt-5.5", created: 1_770_000_000, tools: true },
    { id: "some/base-model", created: 1_780_000_000, tools: false },
    { id: "mistralai/mistral-large", created: 1_700_000_000, tools: true },
  ];

  test("tool-capable models only, newest first, from GET {base}/models", async () => {
    const fake = await startFakeModelListingApi({ openrouter: CATALOGUE });
    defer(() => fake.close());
    const got = await createModelListing().openrouter(fake.openrouterBaseUrl);
    expect(got).toEqual({
      ok: true,
      models: ["openai/gpt-5.5", "anthropic/claude-sonnet-4.6", "mistralai/mistral-large"],
    });
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/v1/models"]);
  });

  test("a good listing is cached for a few minutes; a failure is not", async () => {
    const fake = await startFakeModelListingApi({ openrouter: CATALOGUE, mode: "error" });
    defer(() => fake.close());
    let now = 1_000_000;
    const listing = createModelListing({ now: () => now, cacheMs: 300_000 });
    const failed = await listing.openrouter(fake.openrouterBaseUrl);
    expect(failed).toMatchObject({ ok: false });
    expect(!failed.ok && failed.error).toContain("HTTP 503 (Service temporarily unavailable)");
    expect(!failed.ok && failed.error).toContain("Type a model id");
    fake.setMode("ok");
    expect(await listing.openrouter(fake.openrouterBaseUrl)).toMatchObject({ ok: true });
    fake.setMode("error");
    now += 299_000;
    expect(await listing.openrouter(fake.openrouterBaseUrl)).toMatchObject({ ok: true });
    expect(fake.requests).toHaveLength(2);
    now += 2_000;
    expect(await listing.openrouter(fake.openrouterBaseUrl)).toMatchObject({ ok: false });
    expect(fake.requests).toHaveLength(3);
  });

  test("a malformed body is a failure with the reason, not a crash", async () => {
    const fake = await startFakeModelListingApi({ openrouter: CATALOGUE, mode: "malformed" });
    defer(() => fake.close());
    const got = await createModelListing().openrouter(fake.openrouterBaseUrl);
    expect(got).toMatchObject({ ok: false });
    expect(!got.ok && got.error).toContain("not OpenRouter's model list");
  });
});
