import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-deferred-builtins-0123456789";
const operator = { trust: "operator" as const, local: true, attended: true };

async function owner(toolSearch: boolean) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  if (!toolSearch) h.writeConfig("[fermix_core.tools.tool_search]\nenabled = false");
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
  });
  defer(() => app.close());
  return { app, llm };
}

describe("situational built-ins under tool-schema deferral", () => {
  test("memory_store is off the wire, named under On request, and runs through tool_call", async () => {
    const { app, llm } = await owner(true);
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "tool_call",
          arguments: {
            name: "memory_store",
            arguments: { category: "preference", key: "tea", value: "green, no sugar" },
          },
        },
      ],
    });
    echoToolOutputs(llm);
    const reply = await app.ask({ key: { channel: "cli", chat: "m" }, caller: operator, text: "I like green tea" });
    const first = llm.requests[0]!.body;
    const sent: string[] = first.tools.map((t: any) => t.name);
    expect(sent).not.toContain("memory_store");
    expect(sent).toContain("tool_call");
    expect(first.instructions).toContain("### On request");
    expect(first.instructions).toContain("- memory_store: Remember a durable fact");
    expect(reply.response).toContain("Stored preference tea = green, no sugar");
  });

  test("with deferral off every built-in is on the wire and no bridge or On request list appears", async () => {
    const { app, llm } = await owner(false);
    await app.ask({ key: { channel: "cli", chat: "m" }, caller: operator, text: "hi" });
    const first = llm.requests[0]!.body;
    const sent: string[] = first.tools.map((t: any) => t.name);
    expect(sent).toContain("memory_store");
    expect(sent).toContain("git_write");
    expect(sent).not.toContain("tool_search");
    expect(first.instructions).not.toContain("### On request");
  });

  test("a narrow sub-agent (a skill with one allowed tool) gets that tool on its wire, not the bridges", async () => {
    const { app, llm } = await owner(true);
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "skill_run", arguments: { name: "self-knowledge", input: "what is fermix?" } }],
      },
      { kind: "text", text: "fermix is an agent" },
      { kind: "text", text: "done" },
    );
    await app.ask({ key: { channel: "cli", chat: "k" }, caller: operator, text: "ask the skill" });
    const sub = llm.requests.find((r) => String(r.body.instructions).startsWith("You are a focused sub-agent"))!;
    expect(sub.body.tools.map((t: any) => t.name)).toEqual(["skill_view"]);
  });
});
