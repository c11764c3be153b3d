import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { providersCheck } from "../../src/doctor/providers-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const OPENAI_KEY = "sk-test-doctor-openai-0123456789";
const ANTHROPIC_KEY = "sk-ant-test-doctor-0123456789abc";

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

async function fakes() {
  const openai = await startFakeModelApi({ flavor: "openai", apiKey: OPENAI_KEY, models: ["gpt-5.5"] });
  const anthropic = await startFakeModelApi({
    flavor: "anthropic",
    apiKey: ANTHROPIC_KEY,
    models: ["claude-sonnet-4-6"],
  });
  const ollama = await startFakeModelApi({
    flavor: "ollama",
    ollama: [{ name: "llama3.2:latest", contextLength: 131_072, numCtx: 2048 }],
  });
  defer(() => Promise.all([openai.close(), anthropic.close(), ollama.close()]));
  return { openai, anthropic, ollama };
}

describe("doctor: providers", () => {
  test("the chain, then one probe per provider resolved as a turn resolves it", async () => {
    const h = home();
    const { openai, anthropic, ollama } = await fakes();
    h.writeConfig(
      [
        "[fermix_core.providers.ollama]",
        `base_url = "${ollama.origin}"`,
        "[fermix_core.providers.anthropic]",
        "primary = true",
        'api_key = "$MY_ANTHROPIC_KEY"',
        "[fermix_core.providers.openai]",
        'api_key = "@keyring"',
      ].join("\n"),
    );
    // @keyring finds the file store first, as the daemon's resolution does.
    mkdirSync(join(h.home, "secrets"), { mode: 0o700 });
    writeFileSync(join(h.home, "secrets", "OPENAI_API_KEY"), revoked(OPENAI_KEY), { mode: 0o600 });
    const env = {
      MY_ANTHROPIC_KEY: ANTHROPIC_KEY,
      OPENAI_BASE_URL: openai.baseUrl,
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
    };
    const report = await runDoctor(doctorDeps(h, { env }), [providersCheck]);
    expect(report.rows.map((r) => [r.id, r.status])).toEqual([
      ["providers", "ok"],
      ["providers.openai", "fail"],
      ["providers.anthropic", "ok"],
      ["providers.ollama", "fail"],
    ]);
    expect(report.rows[0]!.detail).toBe("primary anthropic; fallbacks in order: openai → ollama");
    expect(report.rows[1]).toMatchObject({
      detail: `openai (fallback): gpt-5.5 at ${openai.baseUrl}: the key was rejected (HTTP 401)`,
      fix: "put a valid key in OPENAI_API_KEY or api_key under [fermix_core.providers.openai], or run fermix setup (keys: https://platform.openai.com/api-keys)",
    });
    expect(report.rows[2]!.detail).toBe(
      `anthropic (primary): claude-sonnet-4-6 at ${anthropic.baseUrl}: key accepted, model available`,
    );
    expect(report.rows[3]!.detail).toContain("ollama (fallback): llama3.2 at");
    expect(report.rows[3]!.detail).toContain("its num_ctx is 2048 tokens");
    expect(report.ok).toBe(false);
    const text = JSON.stringify(report);
    expect(text).not.toContain(ANTHROPIC_KEY);
    expect(text).not.toContain(revoked(OPENAI_KEY));
  });

  test("zero config: providers with a credential in the environment", async () => {
    const h = home();
    const { openai } = await fakes();
    const env = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: openai.baseUrl };
    const { rows, ok } = await runDoctor(doctorDeps(h, { env }), [providersCheck]);
    expect(ok).toBe(true);
    expect(rows.map((r) => r.detail)).toEqual([
      "primary openai; no fallbacks",
      `openai (primary): gpt-5.5 at ${openai.baseUrl}: key accepted, model available`,
    ]);
  });

  test("an unreachable provider names its URL", async () => {
    const h = home();
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const base = `http://127.0.0.1:${server.port}/v1`;
    await server.stop(true);
    const env = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: base };
    const { rows } = await runDoctor(doctorDeps(h, { env }), [providersCheck]);
    expect(rows[1]).toMatchObject({
      status: "fail",
      detail: `openai (primary): gpt-5.5 at ${base}: unreachable (connection refused)`,
    });
  });

  test("a secret that cannot be resolved fails that provider with the slot, not a value", async () => {
    const h = home();
    h.writeConfig('[fermix_core.providers.mistral]\napi_key = "@keyring"\n');
    const { rows } = await runDoctor(doctorDeps(h), [providersCheck]);
    expect(rows[1]).toMatchObject({ id: "providers.mistral", status: "fail", fix: "run fermix setup" });
    expect(rows[1]!.detail).toStartWith('mistral (primary): MISTRAL_API_KEY is set to "@keyring" but no keyring entry');
  });

  test("a keyring command is run once, however many providers resolve it", async () => {
    const h = home();
    h.writeConfig(
      '[fermix_core.providers.openai]\napi_key = { source = "command", command = ["pass", "openai"] }\n[fermix_core.providers.xai]\napi_key = "x"\n',
    );
    const calls: string[][] = [];
    const run = (argv: string[]) => {
      calls.push(argv);
      return { ok: true, stdout: `${OPENAI_KEY}\n`, stderr: "" };
    };
    const refuse = (async () => new Response("{}", { status: 401 })) as unknown as typeof fetch;
    const report = await runDoctor(doctorDeps(h, { run, fetch: refuse }), [providersCheck]);
    expect(calls).toEqual([["pass", "openai"]]);
    expect(JSON.stringify(report)).not.toContain(OPENAI_KEY);
  });

  test("two primaries fail the chain row", async () => {
    const h = home();
    h.writeConfig(
      '[fermix_core.providers.openai]\nprimary = true\napi_key = "a"\n[fermix_core.providers.xai]\nprimary = true\napi_key = "b"\n',
    );
    const refuse = (async () => new Response("{}", { status: 401 })) as unknown as typeof fetch;
    const { rows } = await runDoctor(doctorDeps(h, { fetch: refuse }), [providersCheck]);
    expect(rows[0]).toMatchObject({ id: "providers", status: "fail" });
    expect(rows[0]!.detail).toContain("config.toml marks more than one provider primary");
  });

  test("nothing configured", async () => {
    const { rows } = await runDoctor(doctorDeps(home()), [providersCheck]);
    expect(rows).toEqual([
      {
        id: "providers",
        title: "providers",
        status: "fail",
        detail: "no model provider is configured",
        fix: "run fermix setup, or export a key such as OPENAI_API_KEY (or OLLAMA_BASE_URL for a local Ollama)",
      },
    ]);
  });

  test("a not-pulled Ollama model", async () => {
    const h = home();
    const ollama = await startFakeModelApi({ flavor: "ollama", ollama: [{ name: "qwen3:8b" }] });
    defer(() => ollama.close());
    const { rows } = await runDoctor(doctorDeps(h, { env: { OLLAMA_BASE_URL: ollama.baseUrl } }), [providersCheck]);
    expect(rows[1]).toMatchObject({ status: "fail", fix: "ollama pull llama3.2" });
  });
});

function revoked(key: string): string {
  return `${key.slice(0, 8)}-revoked-9876543210`;
}
