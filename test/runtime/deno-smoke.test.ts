import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type CliResult, runCommand, runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs, toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * The source tree under Deno 2 (the npm package `deno`, a devDependency), against the same fakes as the
 * compiled binary's tests: the runtime seam's other side, proven end to end.
 */

const ROOT = resolve(import.meta.dirname, "..", "..");
const DENO = join(ROOT, "node_modules", "deno", "deno");
const MAIN = join(ROOT, "src", "main.ts");
const KEY = "sk-test-deno-0123456789abcdef";
// Deno's cache of transpiled modules, shared by this file's runs and never the user's ~/.cache/deno.
const DENO_DIR = mkdtempSync(join(tmpdir(), "fx-deno-"));
afterAll(() => rmSync(DENO_DIR, { recursive: true, force: true }));
const defer = cleanupAfterEach();

const DENO_FERMIX = [DENO, "run", "--allow-all", "--quiet", "--no-prompt", MAIN];
const denoEnv = { DENO_DIR, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };

/** `deno run -A src/main.ts <args>` with a minimal environment, as runFermix runs the binary. */
function denoFermix(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<CliResult> {
  return runCommand([...DENO_FERMIX, ...args], {
    env: { PATH: "/usr/bin:/bin", ...denoEnv, ...opts.env },
    stdin: opts.stdin,
  });
}

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, env };
}

describe("fermix from source under Deno", () => {
  test("the Deno from the npm package is the one these tests run", () => {
    expect(existsSync(DENO)).toBe(true);
  });

  test("--version", async () => {
    const result = await denoFermix(["--version"]);
    expect(result).toEqual({ code: 0, stdout: "0.1.0-dev\n", stderr: "" });
  });

  test("sandbox explain says what the compiled binary says", async () => {
    const { h, env } = await setup();
    const target = join(h.userHome, ".ssh", "id_rsa");
    const fromDeno = await denoFermix(["sandbox", "explain", target], { env });
    const fromBun = await runFermix(["sandbox", "explain", target], { env });
    expect(fromDeno.code).toBe(0);
    expect(fromDeno.stdout).toContain("id_rsa");
    expect(fromDeno).toEqual(fromBun);
  });

  test("ask --no-daemon runs a tool call against the provider and answers with its result", async () => {
    const { h, fake, env } = await setup();
    const dir = join(h.home, "workspace", "notes");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "a.md"), "alpha");
    writeFileSync(join(dir, "sub", "b.md"), "beta");
    writeFileSync(join(dir, "c.txt"), "gamma");
    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "glob_search", arguments: { pattern: "**/*.md", path: dir } }],
    });
    echoToolOutputs(fake, "found: ");
    const asked = await denoFermix(["ask", "--no-daemon", "which notes do I have?"], { env });
    expect(asked.stderr).toBe("");
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe(`found: 2 files under ${dir}:\na.md\nsub/b.md\n`);
    expect(fake.requests).toHaveLength(2);
  });

  test("memory: a fact stored in one session is recalled by full-text search (FTS5 on node:sqlite) in another", async () => {
    const { fake, env } = await setup();
    fake.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "memory_store", arguments: { category: "preference", key: "tea", value: "sencha, no sugar" } }],
      },
      { kind: "text", text: "Noted." },
    );
    expect((await denoFermix(["ask", "--no-daemon", "-s", "monday", "I drink sencha"], { env })).code).toBe(0);
    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "memory_recall", arguments: { query: "sencha tea", scope: "owner" } }],
    });
    echoToolOutputs(fake, "From memory: ");
    const asked = await denoFermix(["ask", "--no-daemon", "-s", "friday", "make my usual tea"], { env });
    expect(asked.code).toBe(0);
    expect(toolOutputs(fake.requests.at(-1)!)[0]).toContain("[fact, owner, preference] tea: sencha, no sugar");
  });

  test("plugins install verifies the embedded catalog's signature and installs from it", async () => {
    const { h, env } = await setup();
    const install = await denoFermix(["plugins", "install", "slack"], { env });
    expect(install).toMatchObject({ code: 0, stderr: "" });
    expect(install.stdout).toMatch(/^installed\tslack\t1\.0\.0\t[0-9a-f]{12}\n$/);
    expect(readFileSync(join(h.home, "plugins/installed/slack/current/plugin.json"), "utf8")).toContain(
      '"name": "slack"',
    );
    const unknown = await denoFermix(["plugins", "install", "nope"], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no plugin named "nope"');
  });

  test("a daemon on Deno answers the compiled Bun client over the socket", async () => {
    const { fake, env } = await setup();
    const daemon = await startFermixDaemon({ ...env, ...denoEnv }, DENO_FERMIX);
    defer(() => daemon.stop());
    fake.enqueue({ kind: "text", text: "hello from the deno daemon" });
    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    const asked = await runFermix(["ask", "--daemon", "hi"], { env: cli });
    expect(asked).toEqual({ code: 0, stdout: "hello from the deno daemon\n", stderr: "" });
    const status = JSON.parse((await runFermix(["status", "--json"], { env: cli })).stdout);
    expect(status.result.pid).toBe(daemon.pid);
    expect(await daemon.stop()).toBe(0);
  });

  test("a compiled Bun daemon answers the CLI on Deno over the socket", async () => {
    const { fake, env } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    fake.enqueue({ kind: "text", text: "hello from the bun daemon" });
    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    const asked = await denoFermix(["ask", "--daemon", "hi"], { env: cli });
    expect(asked).toEqual({ code: 0, stdout: "hello from the bun daemon\n", stderr: "" });
    const stopped = await denoFermix(["stop"], { env: cli });
    expect(stopped).toEqual({ code: 0, stdout: `fermix: stopped (pid ${daemon.pid})\n`, stderr: "" });
    expect(await daemon.stop()).toBe(0);
  });
});
