import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type CliResult, runCommand, runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs, toolOutputs } from "../fixture/tool-outputs.ts";
import { isGone, writeEverythingPlugin } from "../plugins/mcp-rail/_fixture.ts";

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

  test("an MCP plugin server under a Deno daemon answers a tool call; a SIGKILLed Deno daemon's server is reaped by the next daemon", async () => {
    const { h, fake, env } = await setup();
    const root = join(h.userHome, "plugins");
    await writeEverythingPlugin(root);
    h.writeConfig(`[fermix_core.plugins]\nenabled = ["everything"]\ndev_local = "${root}"\n`);
    // The plugin server is started with node, found on the daemon's PATH.
    const daemonEnv = { ...env, ...denoEnv, PATH: `${dirname(process.execPath)}:${nodeDir()}:/usr/bin:/bin` };
    const daemon = await startFermixDaemon(daemonEnv, DENO_FERMIX);
    defer(() => daemon.stop());
    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    await until(async () => {
      const listed = JSON.parse((await runFermix(["plugins", "list", "--json"], { env: cli })).stdout);
      return listed.result.plugins.find((p: { name: string }) => p.name === "everything")?.status === "ready";
    });

    fake.enqueue({ kind: "tool_calls", calls: [{ name: "everything_get_sum", arguments: { a: 2, b: 3 } }] });
    echoToolOutputs(fake);
    const asked = await runFermix(["ask", "--daemon", "add 2 and 3"], { env: cli });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain("The sum of 2 and 3 is 5.");

    // The server runs in its own process group, recorded for the next daemon to reap.
    const record = JSON.parse(readFileSync(join(h.home, "run", "children", `${daemon.pid}.json`), "utf8"));
    const [group] = record.groups as Array<{ pgid: number }>;
    expect(group).toBeDefined();
    process.kill(daemon.pid, "SIGKILL");
    await daemon.stop();
    expect(isGone(group!.pgid)).toBe(false);

    const next = await startFermixDaemon(env);
    defer(() => next.stop());
    await until(async () => isGone(group!.pgid));
    expect(await next.stop()).toBe(0);
  }, 60_000);
});

/** Polls a state the way an owner would (through the CLI or /proc); the deadline is a safety net. */
async function until(check: () => Promise<boolean>, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not reached within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The folder of the node that runs the tests' MCP servers. */
function nodeDir(): string {
  const found = Bun.which("node");
  if (!found) throw new Error("node is not on PATH");
  return dirname(found);
}
