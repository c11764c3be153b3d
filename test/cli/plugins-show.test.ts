import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOAuthProvider } from "../fake/oauth-provider.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * `fermix plugins show NAME` on the compiled binary: a catalog plugin that is not installed shows its tools with
 * read-only/write, the hosts it talks to, its OAuth scopes, runtime, size and a verified signature, and nothing is
 * installed by looking. `plugins list` shows the account a fake OAuth login (the real flow against
 * test/fake/oauth-provider.ts) connected.
 */

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

/** Every row of a tab-separated answer whose first field is `key`, without that field. */
const rows = (text: string, key: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${key}\t`))
    .map((l) => l.split("\t").slice(1));

describe("fermix plugins show", () => {
  test("github before install: tools with read-only/write, hosts, scopes, runtime, size, signature", async () => {
    const h = home();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const manifest = JSON.parse(
      readFileSync(join(import.meta.dir, "../../catalog/plugins/github/plugin.json"), "utf8"),
    );

    const shown = await runFermix(["plugins", "show", "github"], { env });
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    const out = shown.stdout;
    expect(rows(out, "name")).toEqual([["github 1.0.0 — GitHub"]]);
    expect(rows(out, "state")).toEqual([["catalog, not installed"]]);
    expect(rows(out, "runtime")).toEqual([["http rail (fermix makes the requests; no local process)"]]);
    expect(rows(out, "auth")).toEqual([["oauth2 (github)"]]);
    expect(rows(out, "scopes")).toEqual([["repo read:user"]]);
    expect(rows(out, "hosts")).toEqual([["api.github.com"]]);
    expect(rows(out, "sign-in")).toEqual([["github.com"]]);
    expect(rows(out, "size")[0]![0]).toMatch(/^\d+(\.\d)? (KiB|B) \(\d+(\.\d)? (KiB|B) unpacked\)$/);
    expect(rows(out, "sha256")[0]![0]).toMatch(/^[0-9a-f]{64}$/);
    expect(rows(out, "signature")[0]![0]).toStartWith("verified");
    const tools = rows(out, "tool");
    expect(tools.map((t) => t[0])).toEqual(manifest.tools.map((t: { name: string }) => t.name));
    for (const t of manifest.tools as { name: string; read_only: boolean }[]) {
      expect(tools.find((r) => r[0] === t.name)![1]).toBe(t.read_only ? "read-only" : "write");
    }
    expect(tools.find((r) => r[0] === "github_create_issue")).toEqual([
      "github_create_issue",
      "write",
      "Open a new issue in a repository. [needs repo]",
    ]);

    // Looking installs nothing.
    const installedDir = join(h.home, "plugins", "installed");
    expect(existsSync(installedDir) ? readdirSync(installedDir) : []).toEqual([]);
    expect((await runFermix(["plugins", "installed"], { env })).stdout).toBe("no plugins installed\n");

    const json = JSON.parse((await runFermix(["plugins", "show", "github", "--json"], { env })).stdout);
    expect(json.ok).toBe(true);
    expect(json.result).toMatchObject({
      name: "github",
      version: "1.0.0",
      source: "catalog",
      enabled: false,
      rails: ["http"],
      auth: { type: "oauth2", provider: "github", scopes: ["repo", "read:user"] },
      hosts: ["api.github.com"],
      oauth_hosts: ["github.com"],
    });
    expect(json.result.installed).toBeUndefined();
    expect(json.result.size_bytes).toBeGreaterThan(0);
    expect(json.result.tools).toContainEqual(
      expect.objectContaining({ name: "github_list_repos", access: "read-only" }),
    );
  }, 60_000);

  test("an MCP plugin shows its local process; an installed one says so; an unknown name is refused", async () => {
    const h = home();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const obsidian = await runFermix(["plugins", "show", "obsidian"], { env });
    expect(obsidian.code).toBe(0);
    expect(rows(obsidian.stdout, "runtime")).toEqual([["mcp rail (a local node 18+ process: node src/server.mjs)"]]);
    expect(rows(obsidian.stdout, "hosts")).toEqual([["— (its local process decides)"]]);
    expect(rows(obsidian.stdout, "scopes")).toEqual([["—"]]);

    expect((await runFermix(["plugins", "install", "github"], { env })).code).toBe(0);
    const after = await runFermix(["plugins", "show", "github"], { env });
    expect(rows(after.stdout, "state")).toEqual([["installed, installed 1.0.0, disabled"]]);

    const unknown = await runFermix(["plugins", "show", "nosuch"], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no plugin named "nosuch"');
    expect(unknown.stdout).toBe("");
  }, 60_000);
});

describe("fermix plugins list: the connected account", () => {
  test("after a fake Google login the row names the account; unknown is —", async () => {
    const h = home();
    const email = "owner.person@example.com";
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const fake = startFakeOAuthProvider({
      clientSecret: "GOCSPX-fake-cli-secret-0123456789",
      expiresIn: 3600,
      // Google returns an id_token when openid/email scopes are granted; its claims name the account.
      extra: { id_token: `${b64({ alg: "RS256", typ: "JWT" })}.${b64({ email, sub: "1234" })}.sig` },
    });
    defer(() => fake.close());
    h.writeConfig(
      [
        "[fermix_core]",
        'secret_store = "file"',
        "[fermix_core.plugins]",
        'enabled = ["gmail"]',
        "[fermix_core.oauth.google]",
        `client_id = "${fake.clientId}"`,
        `client_secret = "${fake.clientSecret}"`,
        "",
      ].join("\n"),
    );
    const env = {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      FERMIX_TEST_OAUTH_GOOGLE: new URL(fake.endpoints.authorizeUrl).origin,
    };
    const before = await runFermix(["plugins", "list"], { env });
    expect(before.stdout).toMatch(/^gmail\t1\.0\.0\tbundled\tenabled\tneeds_auth\t—$/m);

    // The login prints the authorize URL on stderr and waits for the redirect; the fake plays the browser.
    const proc = Bun.spawn([await fermixBinary(), "plugins", "auth", "login", "gmail", "--no-browser"], {
      env: { PATH: "/usr/bin:/bin", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    defer(() => proc.kill());
    const reader = proc.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let err = "";
    let url: string | undefined;
    while (url === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`login ended before printing its URL:\n${err}`);
      err += value;
      url = /^http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+$/m.exec(err)?.[0];
    }
    const landed = await fake.approve(url);
    expect(landed.status).toBe(200);
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
    expect(code).toBe(0);
    expect(stdout).toContain(email);

    const list = await runFermix(["plugins", "list"], { env });
    expect(list.stdout).toMatch(
      new RegExp(`^gmail\\t1\\.0\\.0\\tbundled\\tenabled\\tready\\t${email.replaceAll(".", "\\.")}$`, "m"),
    );
    expect(list.stdout).toMatch(/^github\t1\.0\.0\tcatalog\tdisabled\tdisabled\t—$/m);
    const json = JSON.parse((await runFermix(["plugins", "list", "--json"], { env })).stdout);
    const gmail = json.result.plugins.find((p: { name: string }) => p.name === "gmail");
    expect(gmail.account).toBe(email);
    expect(json.result.plugins.find((p: { name: string }) => p.name === "github").account).toBeNull();
    for (const secret of [fake.clientSecret, ...fake.issued])
      expect(list.stdout + JSON.stringify(json)).not.toContain(secret);
  }, 60_000);
});
