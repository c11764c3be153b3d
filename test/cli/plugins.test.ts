import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

const defer = cleanupAfterEach();
const TOKEN = "xoxb-20261129-plugin-token-do-not-leak";

/** The compiled binary copied alone into an empty directory, run there with no network and a bare PATH. */
async function aloneBinary(h: { userHome: string }) {
  const dir = join(h.userHome, "bin");
  mkdirSync(dir);
  const bin = join(dir, "fermix");
  copyFileSync(await fermixBinary(), bin);
  return async (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) => {
    return runCommand([bin, ...args], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: h.userHome, ...opts.env },
      stdin: opts.stdin,
    });
  };
}

/** Every file under dir, as text, for "the secret is nowhere" checks. */
function allText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile() && !name.startsWith("secrets/")) out += readFileSync(path, "latin1");
  }
  return out;
}

describe("fermix plugins (compiled binary alone, offline)", () => {
  test("catalog and install slack work from the embedded, signed catalog", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const run = await aloneBinary(h);
    const env = { FERMIX_HOME: h.home };
    const catalog = await run(["plugins", "catalog"], { env });
    expect(catalog.code).toBe(0);
    const names = catalog.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t")[0]);
    expect(names).toEqual([
      "agentmail",
      "discord",
      "github",
      "gmail",
      "google_calendar",
      "google_drive",
      "notion",
      "obsidian",
      "slack",
      "x",
    ]);
    expect(catalog.stdout).toContain("gmail\t1.0.0\toauth2\thttp\tbundled\t");

    const install = await run(["plugins", "install", "slack"], { env });
    expect(install).toMatchObject({ code: 0, stderr: "" });
    expect(install.stdout).toMatch(/^installed\tslack\t1\.0\.0\t[0-9a-f]{12}\n$/);
    expect(readFileSync(join(h.home, "plugins/installed/slack/current/plugin.json"), "utf8")).toContain(
      '"name": "slack"',
    );
    const installed = JSON.parse((await run(["plugins", "installed", "--json"], { env })).stdout);
    expect(installed.result.installed[0]).toMatchObject({ name: "slack", version: "1.0.0", plugin_api: 2 });

    const bundled = await run(["plugins", "install", "gmail"], { env });
    expect(bundled.code).toBe(1);
    expect(bundled.stderr).toContain("gmail is bundled with fermix and always present");
    const unknown = await run(["plugins", "install", "nope"], { env });
    expect(unknown.stderr).toContain('no plugin named "nope"');
  });

  test("auth set slack keeps the token out of config.toml, logs and --json output; the prompt then lists slack's tools", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: "sk-test-plugins-0123456789" });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const run = await aloneBinary(h);
    const env = { FERMIX_HOME: h.home, OPENAI_API_KEY: "sk-test-plugins-0123456789", OPENAI_BASE_URL: fake.baseUrl };

    expect((await run(["plugins", "auth", "set", "slack", TOKEN], { env })).code).toBe(2); // never from argv
    const set = await run(["plugins", "auth", "set", "slack"], { env, stdin: `${TOKEN}\n` });
    expect(set.code).toBe(0);
    const enable = await run(["plugins", "enable", "slack"], { env });
    expect(enable.code).toBe(0);
    expect(enable.stderr).toContain("installed slack 1.0.0 from the catalog");
    const outputs = [
      set,
      enable,
      await run(["plugins", "list", "--json"], { env }),
      await run(["plugins", "auth", "status", "--json"], { env }),
    ];
    for (const o of outputs) expect(o.stdout + o.stderr).not.toContain(TOKEN);
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain('slack = "@keyring"');
    expect(allText(h.home)).not.toContain(TOKEN);
    const doctor = await run(["plugins", "doctor", "slack"], { env });
    expect(doctor.stdout).toBe("slack\tready\t\n");

    fake.enqueue({ kind: "tool_calls", calls: [{ name: "github_list_issues", arguments: {} }] });
    fake.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("\n") || "ok" }));
    const ask = await run(["ask", "what can you reach?"], { env });
    expect(ask.code).toBe(0);
    const instructions: string = fake.requests[0]!.body.instructions;
    expect(instructions).toContain("## Plugins");
    expect(instructions).toMatch(/- slack: slack_\w+/);
    expect(instructions).not.toContain(TOKEN);
    // A plugin that is not enabled: its tool is refused with the enable hint.
    expect(ask.stdout).toContain(
      "belongs to the github plugin, which is disabled; enable it with fermix plugins enable github",
    );
  });

  test("validate checks a plugin folder exactly as install does", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const run = await aloneBinary(h);
    const good = await run(["plugins", "validate", join(import.meta.dir, "../../catalog/plugins/slack")], {
      env: { FERMIX_HOME: h.home },
    });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^ok: slack 1\.0\.0 \(\d+ tools, rail http, auth api_key\)\n$/);
  });
});
