import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { commandProfileTool, commandProfileTools } from "../../src/capabilities/command-profiles.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import { parseConfig } from "../../src/config/load.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-cmd-guest-0123456789abcdef";
const defer = cleanupAfterEach();

const PROFILES = `[sandbox.commands.status]
command = ["git", "status"]
description = "Show the repository status"
`;

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig(PROFILES);
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
  });
  defer(() => app.close());
  return { app, fake, h };
}

describe("command profiles and trust", () => {
  test("an operator turn is offered cmd_<name>; a guest turn never sees it and cannot call it by name", async () => {
    const { app, fake } = await setup();
    await app.ask({
      key: { channel: "cli", chat: "owner" },
      text: "hi",
      caller: { trust: "operator", local: true, attended: true },
    });
    expect((fake.requests[0]!.body.tools as any[]).map((t) => t.name)).toContain("cmd_status");

    fake.enqueue({ kind: "tool_calls", calls: [{ name: "cmd_status", arguments: {} }] });
    fake.setDefault((req) => ({ kind: "text", text: toolOutputs(req).join("\n") || "pong" }));
    const reply = await app.ask({
      key: { channel: "telegram", chat: "42" },
      text: "run it",
      caller: { trust: "guest", local: false, attended: true },
    });
    const guestFirst = fake.requests[1]!.body;
    expect((guestFirst.tools as any[]).map((t) => t.name).filter((n: string) => n.startsWith("cmd_"))).toEqual([]);
    expect(guestFirst.instructions).not.toContain("cmd_status");
    expect(reply.response).toBe('There is no tool named "cmd_status" available here.');
  });

  test("a profile tool is class exec and not read-only, so the policy keeps it from guests anywhere", () => {
    const config = parseConfig(PROFILES, "config.toml");
    const [tool] = commandProfileTools(config);
    expect(tool).toMatchObject({ name: "cmd_status", policy: "exec", readOnly: false });
    const registry = createRegistry([tool!]);
    expect(registry.surface({ trust: "guest", local: false, attended: true })).toEqual([]);
    expect(registry.surface({ trust: "operator", local: true, attended: false }).map((t) => t.name)).toEqual([
      "cmd_status",
    ]);
  });

  test("the timeout backstop follows the profile, and the help names the fixed argv", () => {
    const tool = commandProfileTool("build", {
      command: ["make", "build"],
      description: "Build",
      args: "append",
      timeout_seconds: 30,
    });
    expect(tool.timeoutMs).toBe(40_000);
    expect(tool.help).toContain("`make build` followed by the args you pass");
  });
});

describe("[sandbox.commands] in config.toml", () => {
  const errorOf = (toml: string) => {
    try {
      parseConfig(toml, "/h/config.toml");
    } catch (err) {
      return err as Error & { details?: unknown };
    }
    throw new Error("the config loaded");
  };

  test("a valid profile loads with its defaults left unset", () => {
    const config = parseConfig(
      `[sandbox.commands.deploy]\ncommand = ["make", "deploy"]\ndescription = " Deploy "\n`,
      "config.toml",
    );
    expect(config.sandbox?.commands).toEqual({ deploy: { command: ["make", "deploy"], description: "Deploy" } });
  });

  test.each([
    [
      "an upper-case name",
      `[sandbox.commands.Deploy]\ncommand = ["x"]\ndescription = "d"\n`,
      "[sandbox.commands] Deploy: expected a name of lowercase letters, digits and _ only (the tool is cmd_<name>)",
    ],
    [
      "a name too long for a tool name",
      `[sandbox.commands.${"a".repeat(61)}]\ncommand = ["x"]\ndescription = "d"\n`,
      "expected a name of at most 60 characters",
    ],
    [
      "an unknown key",
      `[sandbox.commands.d]\ncommand = ["x"]\ndescription = "d"\nenv = {}\n`,
      '[sandbox.commands.d] unknown key "env"',
    ],
    [
      "an empty command",
      `[sandbox.commands.d]\ncommand = []\ndescription = "d"\n`,
      "[sandbox.commands.d] command: expected a non-empty list",
    ],
    [
      "an empty argument",
      `[sandbox.commands.d]\ncommand = ["make", ""]\ndescription = "d"\n`,
      '[sandbox.commands.d.command] 1: expected non-empty strings, got ""',
    ],
    [
      "a missing command",
      `[sandbox.commands.d]\ndescription = "d"\n`,
      "[sandbox.commands.d] command: expected a table with command =",
    ],
    [
      "a blank description",
      `[sandbox.commands.d]\ncommand = ["x"]\ndescription = "  "\n`,
      "[sandbox.commands.d] description: expected a one-line description",
    ],
    [
      "a fractional timeout",
      `[sandbox.commands.d]\ncommand = ["x"]\ndescription = "d"\ntimeout_seconds = 1.5\n`,
      "[sandbox.commands.d] timeout_seconds: expected a whole number of seconds",
    ],
    [
      "a zero timeout",
      `[sandbox.commands.d]\ncommand = ["x"]\ndescription = "d"\ntimeout_seconds = 0\n`,
      "timeout_seconds: expected a whole number of seconds from 1 to 600, got 0",
    ],
    [
      "a profile that is not a table",
      `[sandbox.commands]\nd = "make"\n`,
      "[sandbox.commands] d: expected a table with command =",
    ],
  ])("%s is refused with the file, section and key named", (_name, toml, message) => {
    const err = errorOf(toml);
    expect(err.message).toContain("/h/config.toml: ");
    expect(err.message).toContain(message);
  });
});
