import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeModelApi } from "../fake/model-api.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager } from "../service/service-fixture.ts";
import { snapshot } from "../setup/setup-fixture.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-setup-cli-0123456789abcdef";
const WRONG = "sk-wrong-setup-cli-fedcba987654321";

/** The compiled binary with a temp HOME, a fake systemctl first on PATH, and OpenAI at a loopback fake. */
async function setup() {
  const h = tempHome();
  const fake = fakeManager();
  const api = await startFakeModelApi({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.remove());
  defer(() => api.close());
  // The file store, asked for: no test may reach a real keychain (macOS `security` would).
  h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, PATH: fake.path, ...fake.env, OPENAI_BASE_URL: api.baseUrl };
  const unit = join(h.userHome, ".config/systemd/user/fermix.service");
  return {
    h,
    fake,
    api,
    unit,
    fermix: (args: string[], stdin?: string) => runFermix(["setup", ...args], { env, stdin }),
  };
}

describe("fermix setup (compiled binary)", () => {
  test("a piped key: tested, stored in the file store, config and unit written; a re-run changes nothing", async () => {
    const { h, fake, api, unit, fermix } = await setup();
    const binary = await fermixBinary();
    const first = await fermix(["--provider", "openai", "--api-key-stdin", "--user-name", "Ada", "--yes"], `${KEY}\n`);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const secret = join(h.home, "secrets", "OPENAI_API_KEY");
    expect(first.stdout).toContain(`ok: gpt-5.5 at ${api.baseUrl}: key accepted, model available\n`);
    expect(first.stdout).toContain(
      `API key: stored in the file store, ${secret} (0600), as [fermix_core] secret_store = "file" asks; config.toml points at it with api_key = "@keyring"\n`,
    );
    expect(first.stdout).toContain(`service: installed the systemd user service at ${unit}; enabled and started\n`);
    expect(first.stdout).toContain('Next:\n  fermix ask "hello"\n  fermix status\n');
    // Setup ends on a one-time link to the setup page for the rest (the fake systemctl starts no daemon).
    expect(first.stdout).toMatch(
      /Next:[\s\S]*\nMore settings \(channels, plugins, voice notes, search…\) on the setup page: http:\/\/127\.0\.0\.1:4030\/setup\?t=[\w-]+\n/,
    );
    expect(first.stdout).toEndWith(
      "the daemon is starting: the link works as soon as fermix status shows it running\n",
    );
    expect(existsSync(join(h.home, "setup-launch-token.json"))).toBe(true);
    expect(readFileSync(secret, "utf8")).toBe(KEY);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(config).toStartWith(
      '[fermix_core]\nsecret_store = "file"\n\n[fermix_core.providers.openai]\nprimary = true\n',
    );
    expect(config).toContain('api_key = "@keyring"');
    expect(readFileSync(unit, "utf8")).toContain(`ExecStart=${binary} run\n`);
    for (const [path, content] of Object.entries(snapshot(h.userHome))) {
      if (path !== secret) expect(content).not.toContain(KEY);
    }
    expect(first.stdout).not.toContain(KEY);

    const before = snapshot(h.home);
    const again = await fermix(["--yes"]);
    expect(again).toMatchObject({ code: 0, stderr: "" });
    expect(again.stdout).toContain("already holds these answers; unchanged\n");
    expect(again.stdout).toContain(`service: the systemd user service at ${unit} is up to date and enabled\n`);
    // Nothing changes but the fresh one-time link to the setup page.
    const launch = join(h.home, "setup-launch-token.json");
    const { [launch]: _old, ...kept } = before;
    const { [launch]: _new, ...now } = snapshot(h.home);
    expect(_new).not.toBe(_old);
    expect(now).toEqual(kept);
    expect(fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
  });

  test("a rejected key: exit 1 with the fix, nothing written", async () => {
    const { h, fake, fermix } = await setup();
    const before = snapshot(h.userHome);
    const result = await fermix(["--provider", "openai", "--api-key-stdin", "--yes"], WRONG);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("Testing OpenAI (gpt-5.5)…\n");
    expect(result.stderr).toContain("the key was rejected (HTTP 401)\n  fix: put a valid key in OPENAI_API_KEY");
    expect(result.stderr).toContain("nothing was written");
    expect(result.stderr).not.toContain(WRONG);
    expect(snapshot(h.userHome)).toEqual(before);
    expect(fake.calls()).toEqual([]);
  });

  test("usage errors exit 2 and name the flag; a stray word (a pasted key?) is not echoed", async () => {
    const { fermix } = await setup();
    const zone = await fermix(["--provider", "openai", "--timezone", "Mars/Base", "--yes"]);
    expect(zone.code).toBe(2);
    expect(zone.stderr).toStartWith('fermix: setup: --timezone: "Mars/Base" is not an IANA time zone');
    const stray = await fermix(["--provider", "openai", KEY]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).not.toContain(KEY);
    expect(stray.stderr).toContain("an API key is never read from the command line");
  });
});
