import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectIsolation } from "../../src/sandbox/isolation.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs, toolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-cmd-profiles-0123456789abcdef";
const MARKER = "fermix-parent-only-0a1b2c";
const defer = cleanupAfterEach();
// The jail's own effects (FERMIX_HOME masked) are checked only where bubblewrap runs; the rest holds everywhere.
const hasBwrap = detectIsolation({ platform: process.platform, which: (c) => Bun.which(c) }).isolation === "bubblewrap";

const PROFILES = `[sandbox.commands.show_env]
command = ["/usr/bin/env"]
description = "Print the environment commands get"

[sandbox.commands.peek]
command = ["cat", "--"]
description = "Print files"
args = "append"
timeout_seconds = 30
`;

/** A project under the (temp) user home, so standard mode admits it as the caller's cwd. */
async function project(config = PROFILES) {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const configFile = h.writeConfig(`# the owner's\n${config}`);
  const dir = join(h.userHome, "project");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "project notes\n");
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrl,
    FERMIX_TEST_MARKER: MARKER,
  };
  return { h, fake, dir, env, configFile };
}

describe("[sandbox.commands] profiles through the built binary", () => {
  test("cmd_<name> runs the fixed argv in the sandbox with the minimal environment", async () => {
    const { fake, dir, env } = await project();
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "cmd_show_env", arguments: {} }] });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "--no-daemon", "what environment do commands get?"], { env, cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cmd_show_env exited with code 0");
    // The child environment is the sandbox's minimal one: fermix's own (its key, the marker) never reaches it.
    expect(r.stdout).toContain("TERM=dumb");
    expect(r.stdout).toContain("LC_ALL=C.UTF-8");
    expect(r.stdout).not.toContain(MARKER);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).not.toContain("OPENAI_BASE_URL");

    // The provider was offered both tools with their shapes: no parameters for args = "none", args for "append".
    const tools = fake.requests[0]!.body.tools as any[];
    const showEnv = tools.find((t) => t.name === "cmd_show_env");
    const peek = tools.find((t) => t.name === "cmd_peek");
    expect(showEnv.description).toBe("Print the environment commands get");
    expect(Object.keys(showEnv.parameters.properties ?? {})).toEqual([]);
    expect(Object.keys(peek.parameters.properties)).toEqual(["args"]);
    expect(fake.requests[0]!.body.instructions).toContain("cmd_peek");
  });

  test('appended args reach the command only with args = "append"; the jail hides FERMIX_HOME', async () => {
    const { fake, h, dir, env } = await project();
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "cmd_peek", arguments: { args: ["notes.txt", join(h.home, "config.toml")] } },
        { name: "cmd_show_env", arguments: { args: ["-u", "PATH"] } },
      ],
    });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "--no-daemon", "show me the notes"], { env, cwd: dir });
    expect(r.code).toBe(0);
    const [peek, showEnv] = toolOutputs(fake.requests[1]!);
    // cat ran in the caller's cwd with the model's arguments, each one argument (no shell).
    expect(peek).toContain("project notes");
    if (hasBwrap) {
      // The config file is readable to fermix but masked inside the jail.
      expect(peek).toContain("cmd_peek exited with code 1");
      expect(peek).toContain("No such file or directory");
      expect(peek).not.toContain("the owner's");
    }
    // args = "none": arguments are refused, not ignored.
    expect(showEnv).toContain("Invalid arguments for cmd_show_env");
    expect(showEnv).not.toContain("exited with code");
  });

  test("a catastrophic profile is refused by the sandbox like any command", async () => {
    const { fake, dir, env } = await project(
      `[sandbox.commands.wipe]\ncommand = ["rm", "-rf", "/"]\ndescription = "never runs"\n`,
    );
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "cmd_wipe", arguments: {} }] });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "--no-daemon", "wipe"], { env, cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Denied: refused in every sandbox mode: recursive rm of /");
  });

  test("fermix capabilities lists the profiles as commands", async () => {
    const { env } = await project();
    const r = await runFermix(["capabilities"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\(builtin \d+, skill \d+, mcp 0, command 2\)\n/);
    expect(r.stdout).toContain("- cmd_show_env [command] Print the environment commands get\n");
    const json = JSON.parse((await runFermix(["capabilities", "--json", "--kind", "command"], { env })).stdout);
    expect(json.result.capabilities).toEqual([
      {
        name: "cmd_show_env",
        kind: "command",
        description: "Print the environment commands get",
        policy: "exec",
        read_only: false,
      },
      { name: "cmd_peek", kind: "command", description: "Print files", policy: "exec", read_only: false },
    ]);
  });

  test.each([
    [
      "a bad name",
      `[sandbox.commands.Run-It]\ncommand = ["ls"]\ndescription = "d"\n`,
      /\[sandbox\.commands\] Run-It: expected a name of lowercase letters, digits and _ only/,
    ],
    [
      "an unknown key",
      `[sandbox.commands.ls]\ncommand = ["ls"]\ndescription = "d"\nshell = true\n`,
      /\[sandbox\.commands\.ls\] unknown key "shell"/,
    ],
    [
      "a command string",
      `[sandbox.commands.ls]\ncommand = "ls -la"\ndescription = "d"\n`,
      /\[sandbox\.commands\.ls\] command: expected a list/,
    ],
    [
      "no description",
      `[sandbox.commands.ls]\ncommand = ["ls"]\n`,
      /\[sandbox\.commands\.ls\] description: expected .*both required/,
    ],
    [
      "a bad args mode",
      `[sandbox.commands.ls]\ncommand = ["ls"]\ndescription = "d"\nargs = "all"\n`,
      /\[sandbox\.commands\.ls\] args: expected "none" \(the default\) or "append", got "all"/,
    ],
    [
      "a timeout past the cap",
      `[sandbox.commands.ls]\ncommand = ["ls"]\ndescription = "d"\ntimeout_seconds = 3600\n`,
      /\[sandbox\.commands\.ls\] timeout_seconds: expected a whole number of seconds from 1 to 600, got 3600/,
    ],
  ])("%s fails the load with the key named, and nothing runs", async (_name, toml, message) => {
    await using h = tempHome();
    const file = h.writeConfig(toml);
    const r = await runFermix(["ask", "--no-daemon", "ping"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: "sk-env" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(file);
    expect(readdirSync(h.home)).toEqual(["config.toml"]);
  });
});
