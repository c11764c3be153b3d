import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-doctor-cli-0123456789abcdef";
const WRONG = "sk-test-doctor-bad-fedcba9876543210";

async function setup(apiKey: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const api = await startFakeModelApi({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
  defer(() => api.close());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: api.baseUrl };
  return { h, api, env };
}

function expectNoKey(text: string, key: string) {
  expect(text).not.toContain(key);
  expect(text).not.toContain(`${key.slice(0, 3)}***${key.slice(-4)}`);
}

describe("fermix doctor", () => {
  test("a working provider and no daemon: warnings only, exit 0", async () => {
    const { api, env } = await setup(KEY);
    const r = await runFermix(["doctor"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ok   config     ~/h/config.toml does not exist");
    expect(r.stdout).toContain(
      `ok   providers  openai (primary): gpt-5.5 at ${api.baseUrl}: key accepted, model available\n`,
    );
    expect(r.stdout).toContain("warn daemon     not running (no socket at ~/h/daemon.sock)\n     fix: fermix start\n");
    expect(r.stdout).toContain("warn service    no service unit installed");
    expect(r.stdout).toMatch(/ok {3}catalog {4}the embedded plugin catalog's signature verifies/);
    expect(r.stdout).toMatch(/\n\d+ ok, \d+ warnings?, 0 failures\n$/);
    expectNoKey(r.stdout, KEY);
  });

  test("a rejected key fails, exit 1, with the fix and without the key", async () => {
    const { api, env } = await setup(WRONG);
    const r = await runFermix(["doctor"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `fail providers  openai (primary): gpt-5.5 at ${api.baseUrl}: the key was rejected (HTTP 401)\n     fix: put a valid key in OPENAI_API_KEY or api_key under [fermix_core.providers.openai], or run fermix setup`,
    );
    expectNoKey(r.stdout + r.stderr, WRONG);
  });

  test("--json: the typed envelope with every row; the exit code still says whether anything failed", async () => {
    const { env } = await setup(WRONG);
    const r = await runFermix(["doctor", "--json"], { env });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({
      schema_version: 1,
      ok: true,
      result: { ok: false, full: false, counts: { fail: 1 } },
    });
    expect(typeof json.result.version).toBe("string");
    const ids = json.result.rows.map((row: { id: string }) => row.id);
    expect(ids).toEqual([
      "config",
      "providers",
      "providers.openai",
      "daemon",
      "service",
      "keychain",
      "plugins",
      "voice",
      "computer-use",
      "cloud-rail",
      "web",
      "catalog",
      "templates",
      "trace-export",
      "budget",
      "disk",
    ]);
    for (const row of json.result.rows) {
      expect(Object.keys(row).sort()).toEqual(
        row.fix ? ["detail", "fix", "id", "status", "title"] : ["detail", "id", "status", "title"],
      );
      expect(["ok", "warn", "fail"]).toContain(row.status);
    }
    expectNoKey(r.stdout, WRONG);
  });

  test("a bad config.toml fails with file, section and key", async () => {
    const { h, env } = await setup(KEY);
    h.writeConfig('[fermix_core.providers.openai]\nmodle = "x"\n');
    const r = await runFermix(["doctor"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'fail config     ~/h/config.toml: [fermix_core.providers.openai] unknown key "modle" (remove it, or check its spelling)\n',
    );
  });

  test("a stray argument is a usage error", async () => {
    const { env } = await setup(KEY);
    const r = await runFermix(["doctor", "now"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('doctor: unexpected argument "now"');
  });
});

describe("with a daemon running", () => {
  function staleGithubToken(h: TempHome) {
    h.writeConfig(
      '[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n\n[fermix_core.plugins]\nenabled = ["github"]\n',
    );
    const long = new Date(Date.now() - 60 * 24 * 60 * 60 * 1000).toISOString();
    const token = { provider: "github", access_token: "gho_x", scopes: [], obtained_at: long, expires_at: long };
    writeFileSync(`${h.home}/auth.json`, JSON.stringify({ plugins: { github: token } }), { mode: 0o600 });
  }

  test("doctor sees the daemon's version; status names plugins that need reconnecting", async () => {
    const { h, env } = await setup(KEY);
    staleGithubToken(h);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());

    const doctor = await runFermix(["doctor"], { env });
    expect(doctor.stdout).toMatch(new RegExp(`ok {3}daemon {5}running \\(pid ${daemon.pid}, version [\\w.-]+\\)\\n`));
    expect(doctor.stdout).toContain(
      "warn plugins    github: its sign-in was revoked or expired long ago; its tools fail until you reconnect\n     fix: Reconnect needed: fermix plugins auth reauthorize github\n",
    );

    const status = await runFermix(["status"], { env: { FERMIX_HOME: h.home, HOME: h.userHome } });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("plugins: github needs reconnecting — fermix plugins auth reauthorize github\n");
    const json = JSON.parse((await runFermix(["status", "--json"], { env })).stdout);
    expect(json.result.plugins_needing_reconnect).toEqual(["github"]);
  });
});
