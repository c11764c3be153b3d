/**
 * A daemon reuses what its turns build the same way every time (issue 31): the prompt files by their stat, the system
 * prompt and the skills index by their inputs. Whatever they derive from, changed between two asks, must reach the
 * very next request.
 */
import { describe, expect, test } from "bun:test";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { askLocally } from "../../src/gateway/local-ask.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-turn-reuse-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: "pong" });
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    role: "daemon",
  });
  defer(() => app.close());
  const ask = async (text = "ping", cwd?: string) => {
    await askLocally(app, { text, ...(cwd ? { cwd } : {}) });
    const body = fake.requests.at(-1)!.body;
    return { instructions: body.instructions as string, tools: (body.tools as { name: string }[]).map((t) => t.name) };
  };
  return { app, h, ask };
}

describe("a daemon's turns", () => {
  test("a prompt file edited in place, to the same size or another, reaches the next request at once", async () => {
    const { app, ask } = await setup();
    const soul = app.paths.promptFiles.soul;
    expect((await ask()).instructions).toContain("# Soul");
    writeFileSync(soul, "Speak like a pirate.");
    expect((await ask()).instructions).toContain("Speak like a pirate.");
    // The same size, written within the filesystem's time grain of the last one.
    writeFileSync(soul, "Speak like a parrot.");
    const parrot = await ask();
    expect(parrot.instructions).toContain("Speak like a parrot.");
    expect(parrot.instructions).not.toContain("pirate");
    writeFileSync(app.paths.promptFiles.memory, "- The owner's cat is called Miso.");
    expect((await ask()).instructions).toContain("Miso");
  });

  test("a prompt file replaced, removed or created reaches the next request", async () => {
    const { app, ask } = await setup();
    const guidance = app.paths.promptFiles.guidance;
    await ask();
    writeFileSync(`${guidance}.new`, "Always answer in French.");
    renameSync(`${guidance}.new`, guidance);
    expect((await ask()).instructions).toContain("Always answer in French.");
    rmSync(guidance);
    const without = await ask();
    expect(without.instructions).not.toContain("Always answer in French.");
    // An empty guidance file falls back to the built-in sentence, as a missing one does.
    expect(without.instructions).toContain("Use your tools to look things up");
    writeFileSync(guidance, "Always answer in Latin.");
    expect((await ask()).instructions).toContain("Always answer in Latin.");
  });

  test("config.toml edited between two asks: the tools it adds reach the next request and its prompt", async () => {
    const { h, ask } = await setup();
    const before = await ask();
    expect(before.tools).not.toContain("cmd_status");
    h.writeConfig(
      '[sandbox.commands.status]\ncommand = ["git", "status"]\ndescription = "Show the repository status"\n',
    );
    const after = await ask();
    expect(after.tools).toContain("cmd_status");
    expect(after.instructions).toContain("cmd_status");
    expect(after.instructions).not.toBe(before.instructions);
  });

  test("the working directory the ask names reaches its prompt", async () => {
    const { ask } = await setup();
    expect((await ask("ping", "/srv/one")).instructions).toContain("working in /srv/one");
    expect((await ask("ping", "/srv/two")).instructions).toContain("working in /srv/two");
  });
});
