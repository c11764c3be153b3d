import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeProviderOAuth } from "../fake/provider-oauth.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const RESTART = "Restart the daemon to pick up new credentials: `fermix restart`.";

const CONFIG = `# owner's notes stay
[fermix_core.providers.anthropic]
# key from the environment
api_key = "$ANTHROPIC_API_KEY"
primary = true

[fermix_core.providers.xai]
api_key = "$XAI_API_KEY" # trailing comment
`;

function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = startFakeProviderOAuth();
  defer(() => fake.close());
  h.writeConfig(CONFIG);
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, FERMIX_TEST_OAUTH_BASE_URL: fake.base };
  const auth = () => JSON.parse(readFileSync(join(h.home, "auth.json"), "utf8"));
  const config = () => readFileSync(join(h.home, "config.toml"), "utf8");
  const outputs: string[] = [];
  const run = async (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) => {
    const r = await runFermix(args, { env: { ...env, ...opts.env }, stdin: opts.stdin });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  /** No token the fake issued (or the test handed in) shows up in anything fermix printed. */
  const noTokens = (extra: string[] = []) => {
    for (const secret of [...fake.issued, ...extra]) for (const out of outputs) expect(out).not.toContain(secret);
  };
  return { h, fake, env, auth, config, run, noTokens, outputs };
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** `fermix auth login --no-browser …`, approving the URL it prints on stderr the way a browser would. */
async function browserLogin(s: ReturnType<typeof setup>, provider: "codex" | "xai", port: number) {
  const proc = Bun.spawn(
    [await fermixBinary(), "auth", "login", "--provider", provider, "--no-browser", "--port", String(port)],
    { env: { PATH: "/usr/bin:/bin", ...s.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  defer(() => proc.kill());
  const reader = proc.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  let url: string | undefined;
  while (!url) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`login exited before printing a URL:\n${stderr}`);
    stderr += value;
    url = stderr.match(/^(http:\/\/127\.0\.0\.1:\d+\/\S+)$/m)?.[1];
  }
  const page = await s.fake.approve(url);
  const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  s.outputs.push(stdout, stderr, await page.text());
  return { code, stdout, stderr, url: new URL(url), page };
}

describe("fermix auth (compiled binary)", () => {
  test("anthropic --setup-token from stdin: stored 0600, auth_mode oauth, comments kept, token never printed", async () => {
    const s = setup();
    const token = "sk-ant-oat01-stdin-setup-token-0123456789";
    const r = await s.run(["auth", "login", "--provider", "anthropic", "--setup-token"], { stdin: `${token}\n` });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Signed in to Claude (setup_token).");
    expect(r.stdout).toContain('Set auth_mode = "oauth" in [fermix_core.providers.anthropic]');
    expect(r.stdout).not.toContain(RESTART); // no daemon runs
    expect(s.auth().providers.anthropic_oauth).toMatchObject({
      auth_mode: "setup_token",
      tokens: { access_token: token },
    });
    expect(statSync(join(s.h.home, "auth.json")).mode & 0o777).toBe(0o600);
    const config = s.config();
    expect(config).toContain("# owner's notes stay");
    expect(config).toContain("# key from the environment");
    expect(config).toMatch(/\[fermix_core\.providers\.anthropic\][^[]*auth_mode = "oauth"/);
    expect(config).toContain("primary = true");

    const status = await s.run(["auth", "status", "--provider", "anthropic"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(
      "anthropic_oauth:\n  provider: anthropic\n  auth_mode: setup_token\n  expires_at: never",
    );
    expect(status.stdout).toContain("status: logged in (setup_token, does not expire)");

    const out = await s.run(["auth", "logout", "--provider", "anthropic"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Logged out of Claude");
    expect(out.stdout).toContain('Set auth_mode = "api_key" in [fermix_core.providers.anthropic]');
    expect(s.auth().providers.anthropic_oauth).toBeUndefined();
    expect(s.config()).toContain('auth_mode = "api_key"');
    expect(s.config()).toContain("# key from the environment");
    const after = await s.run(["auth", "status", "--provider", "anthropic"]);
    expect(after.stdout).toBe(
      `anthropic_oauth: not logged in (no anthropic_oauth entry in ${join(s.h.home, "auth.json")})\n`,
    );
    s.noTokens([token]);
  });

  test("anthropic --import-claude-code reads $HOME/.claude/.credentials.json", async () => {
    const s = setup();
    mkdirSync(join(s.h.userHome, ".claude"), { recursive: true });
    const creds = {
      accessToken: "sk-ant-oat01-imported-abcdef",
      refreshToken: "sk-ant-ort01-imported-r",
      expiresAt: Date.now() + 8 * 3600_000,
    };
    writeFileSync(join(s.h.userHome, ".claude", ".credentials.json"), JSON.stringify({ claudeAiOauth: creds }));
    const r = await s.run(["auth", "login", "--provider", "anthropic", "--import-claude-code"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Signed in to Claude (claude_code_import).");
    expect(s.auth().providers.anthropic_oauth.tokens).toEqual({
      access_token: creds.accessToken,
      refresh_token: creds.refreshToken,
    });
    const status = await s.run(["auth", "status", "--provider", "anthropic", "--json"]);
    const json = JSON.parse(status.stdout);
    expect(json.ok).toBe(true);
    expect(json.result.profiles[0]).toMatchObject({
      profile: "anthropic_oauth",
      state: "logged_in",
      auth_mode: "claude_code_import",
    });
    s.noTokens([creds.accessToken, creds.refreshToken]);
  });

  test("anthropic with CLAUDE_CODE_OAUTH_TOKEN, and without any source: a usage error", async () => {
    const s = setup();
    const none = await s.run(["auth", "login", "--provider", "anthropic"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("CLAUDE_CODE_OAUTH_TOKEN");
    const token = "sk-ant-oat01-from-env-0987654321";
    const r = await s.run(["auth", "login", "--provider", "anthropic"], { env: { CLAUDE_CODE_OAUTH_TOKEN: token } });
    expect(r.code).toBe(0);
    expect(s.auth().providers.anthropic_oauth.tokens.access_token).toBe(token);
    s.noTokens([token]);
    // The facts' form too: the token right after --setup-token.
    const word = "sk-ant-oat01-as-a-word-1122334455";
    const w = await s.run(["auth", "login", "--provider", "anthropic", "--setup-token", word]);
    expect(w.code).toBe(0);
    expect(s.auth().providers.anthropic_oauth.tokens.access_token).toBe(word);
    s.noTokens([word]);
  });

  for (const provider of ["codex", "xai"] as const) {
    test(`${provider}: loopback PKCE sign-in with --no-browser, then status and logout`, async () => {
      const s = setup();
      const port = await freePort();
      const r = await browserLogin(s, provider, port);
      expect(r.code).toBe(0);
      expect(r.page.status).toBe(200);
      expect(r.stderr).toContain(`Open this URL to sign in to ${provider === "codex" ? "ChatGPT (Codex)" : "Grok"}:`);
      expect(r.url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(r.url.searchParams.get("redirect_uri")).toBe(
        provider === "codex" ? `http://localhost:${port}/auth/callback` : `http://127.0.0.1:${port}/callback`,
      );
      expect(r.stdout).toContain("as owner@example.com (oauth_pkce)");
      const profile = provider === "codex" ? "openai_codex" : "xai_oauth";
      expect(s.auth().providers[profile]).toMatchObject({ auth_mode: "oauth_pkce", status: "ready" });
      if (provider === "xai") {
        expect(s.config()).toMatch(/api_key = "\$XAI_API_KEY" # trailing comment\nauth_mode = "oauth"/);
      } else {
        expect(s.config()).toContain("[fermix_core.providers.openai_codex]");
        // A sign-in never changes which provider is primary.
        expect(s.config().match(/primary/g)).toHaveLength(1);
      }
      const status = await s.run(["auth", "status"]);
      expect(status.stdout).toMatch(
        new RegExp(
          `${profile}:\\n  provider: ${provider}\\n  auth_mode: oauth_pkce\\n  expires_at: \\S+ \\(in 59 min\\)`,
        ),
      );
      expect(status.stdout).toContain(
        "status: logged in as owner@example.com (oauth_pkce), token expires in 59 min, refreshes itself",
      );

      const out = await s.run(["auth", "logout", "--provider", provider]);
      expect(out.code).toBe(0);
      expect(s.auth().providers[profile]).toBeUndefined();
      if (provider === "xai") expect(s.config()).toContain('auth_mode = "api_key"');
      s.noTokens();
    });
  }

  test("a refused refresh shows as Reconnect needed in status and doctor", async () => {
    const s = setup();
    writeFileSync(
      join(s.h.home, "auth.json"),
      JSON.stringify({
        version: 2,
        providers: {
          xai_oauth: {
            auth_mode: "oauth_pkce",
            tokens: { access_token: "a", refresh_token: "r" },
            expires_at: new Date(Date.now() - 1000).toISOString(),
            status: "reauthorization_required",
            refused: "invalid_grant",
          },
        },
      }),
      { mode: 0o600 },
    );
    const status = await s.run(["auth", "status", "--provider", "xai"]);
    expect(status.stdout).toContain(
      "status: Reconnect needed (refresh refused: invalid_grant) — run `fermix auth login --provider xai`",
    );
    const doctor = await s.run(["doctor", "--json"]);
    const row = JSON.parse(doctor.stdout).result.rows.find((r: { id: string }) => r.id === "auth-tokens");
    expect(row).toMatchObject({ status: "warn", fix: "sign in again: fermix auth login --provider xai" });
    expect(row.detail).toContain("Reconnect needed");
  });

  test("a broken auth.json: status says so and exits 1; login moves it aside and refuses", async () => {
    const s = setup();
    writeFileSync(join(s.h.home, "auth.json"), "{ broken", { mode: 0o600 });
    const status = await s.run(["auth", "status"]);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain("is not valid JSON");
    const login = await s.run(["auth", "login", "--provider", "anthropic", "--setup-token"], { stdin: "sk-ant-x\n" });
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/moved aside to \S+auth\.json\.broken\.\d+/);
  });

  test("bad options exit 2", async () => {
    const s = setup();
    expect((await s.run(["auth", "login", "--provider", "gemini"])).stderr).toContain(
      'unknown provider "gemini"; expected codex, anthropic, or xai',
    );
    expect((await s.run(["auth", "login", "--provider", "gemini"])).code).toBe(2);
    expect((await s.run(["auth", "login", "--port", "99999"])).code).toBe(2);
    expect((await s.run(["auth", "login", "--provider", "xai", "--setup-token"])).code).toBe(2);
    const stray = await s.run(["auth", "login", "--provider", "codex", "sk-secret-word"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).not.toContain("sk-secret-word");
  });

  test("with a daemon running: login and logout say to restart; logout asks it to drop the tokens", async () => {
    const s = setup();
    const KEY = "sk-test-openai-0123456789abcdef";
    const llm = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => llm.close());
    s.h.writeConfig(`[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\nprimary = true\n`);
    const daemon = await startFermixDaemon({ ...s.env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl });
    defer(() => daemon.stop());
    const login = await s.run(["auth", "login", "--provider", "anthropic", "--setup-token"], {
      stdin: "sk-ant-oat01-daemon\n",
    });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(RESTART);
    const logout = await s.run(["auth", "logout", "--provider", "anthropic"]);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain(RESTART);
    s.noTokens(["sk-ant-oat01-daemon"]);
  });
});
