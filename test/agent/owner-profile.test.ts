import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-owner-profile-0123456789";
const defer = cleanupAfterEach();

describe("the owner's profile and a guest", () => {
  test("an operator's prompt names the owner; a guest's carries neither the name, the style nor USER.md and MEMORY.md", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    fake.setDefault({ kind: "text", text: "hi" });
    h.writeConfig(
      '[fermix_core.personalization]\nuser_name = "Ada Lovelace"\ncommunication_style = "call me Countess"\n',
    );
    const app = await createApp({
      env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
    });
    defer(() => app.close());
    // What the owner told the agent about themselves: the memory review's profile files.
    mkdirSync(dirname(app.paths.promptFiles.user), { recursive: true });
    mkdirSync(dirname(app.paths.promptFiles.memory), { recursive: true });
    writeFileSync(app.paths.promptFiles.user, "# User\nLives at 12 Analytical Row.\n");
    writeFileSync(app.paths.promptFiles.memory, "# Memory\nBank: Babbage & Co.\n");

    await app.ask({
      key: { channel: "cli", chat: "owner" },
      caller: { trust: "operator", local: true, attended: true },
      text: "hello",
    });
    await app.ask({
      key: { channel: "telegram", chat: "stranger" },
      caller: { trust: "guest", local: false, attended: true },
      text: "who owns you?",
    });
    const [owner, guest] = fake.requests.map((r) => String(r.body.instructions));
    expect(owner).toContain("- Name: Ada Lovelace.");
    expect(owner).toContain("call me Countess");
    expect(guest).not.toContain("Ada Lovelace");
    expect(guest).not.toContain("Countess");
    expect(guest).not.toContain("## The owner, as set up");
    // The owner's profile files reach the owner's turns only.
    expect(owner).toContain("12 Analytical Row");
    expect(owner).toContain("Babbage & Co.");
    expect(guest).not.toContain("12 Analytical Row");
    expect(guest).not.toContain("Babbage");
  });
});
