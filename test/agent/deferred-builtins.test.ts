import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { DIRECT_TOOLS } from "../fixture/direct-tools.ts";
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

const ON_REQUEST = [
  "update_job",
  "pause_job",
  "resume_job",
  "remove_job",
  "run_job_now",
  "list_job_runs",
  "get_job_run",
  "skill_list",
  "skill_create",
  "skill_reload",
  "memory_sources_list",
  "model_routing_config",
  "generate_image",
  "browser",
  "tool_help",
];

describe("direct and on-request built-ins under tool-schema deferral", () => {
  test("the everyday built-ins are on the wire; the rest are named under On request, none twice", async () => {
    const { app, llm } = await owner(true);
    await app.ask({ key: { channel: "cli", chat: "m" }, caller: operator, text: "hi" });
    const first = llm.requests[0]!.body;
    const sent: string[] = first.tools.map((t: any) => t.name);
    expect([...sent].sort()).toEqual([...DIRECT_TOOLS].sort());
    const catalog = String(first.instructions).slice(first.instructions.indexOf("## Built-in Capability Catalog"));
    for (const name of ON_REQUEST) expect(catalog).toContain(`\n- ${name}: `);
    // A direct tool is named once, by name, not described again under On request.
    for (const name of DIRECT_TOOLS) expect(catalog).not.toContain(`\n- ${name}: `);
  });

  test("storing a memory takes exactly two model requests: the direct memory_store call, then the answer", async () => {
    const { app, llm } = await owner(true);
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "memory_store", arguments: { category: "preference", key: "tea", value: "green, no sugar" } }],
      },
      { kind: "text", text: "Noted: green tea, no sugar." },
    );
    const reply = await app.ask({ key: { channel: "cli", chat: "m" }, caller: operator, text: "I like green tea" });
    expect(reply.response).toBe("Noted: green tea, no sugar.");
    expect(llm.requests).toHaveLength(2);
    const output = llm.requests[1]!.body.input.find((i: any) => i.type === "function_call_output");
    expect(output.output).toContain("Stored preference tea = green, no sugar");
  });

  test("an on-request built-in runs through tool_call", async () => {
    const { app, llm } = await owner(true);
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "tool_call", arguments: { name: "skill_list", arguments: {} } }],
    });
    echoToolOutputs(llm);
    const reply = await app.ask({ key: { channel: "cli", chat: "m" }, caller: operator, text: "what skills?" });
    expect(llm.requests[0]!.body.tools.map((t: any) => t.name)).not.toContain("skill_list");
    expect(reply.response).toContain("self-knowledge");
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
