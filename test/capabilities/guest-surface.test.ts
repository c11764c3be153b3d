import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-guest-0123456789abcdef";
const defer = cleanupAfterEach();

// Owner data and actions: none of these may reach a guest, on the wire or by name.
const FORBIDDEN = [
  "shell",
  "file_read",
  "file_write",
  "file_edit",
  "glob_search",
  "content_search",
  "git_read",
  "git_write",
  "web_fetch",
  "web_search",
  "request_directory_access",
  "memory_sources_list",
  "subagents",
  "skill_list",
  "skill_view",
  "skill_run",
  "skill_create",
  "skill_reload",
  "list_jobs",
  "list_job_runs",
  "get_job_run",
];

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl },
  });
  defer(() => app.close());
  return { app, fake };
}

describe("a guest turn", () => {
  test("the provider request carries no exec, network, workspace-read or approval tool, nor does the prompt", async () => {
    const { app, fake } = await setup();
    await app.ask({
      key: { channel: "telegram", chat: "42" },
      text: "hi",
      caller: { trust: "guest", local: false, attended: true },
    });
    const body = fake.requests[0]!.body;
    const offered: string[] = (body.tools ?? []).map((t: any) => t.name);
    const catalog = String(body.instructions);
    const named = catalog.match(/In your tool list, call directly: (.*)\./)?.[1]?.split(", ") ?? [];
    for (const name of FORBIDDEN) {
      expect(offered).not.toContain(name);
      expect(named).not.toContain(name);
      expect(catalog).not.toContain(`- ${name}:`);
    }
    // Memory tools stay, bound to the guest's own conversation by the recall scope rules. So do the job writes (a
    // guest manages only the jobs it made here): memory_store and schedule_job direct like the owner's, the
    // rarer job writes behind the bridges.
    expect(offered).toEqual([
      "memory_store",
      "memory_recall",
      "schedule_job",
      "tool_search",
      "tool_describe",
      "tool_call",
    ]);
    expect(named).toEqual(offered);
    const onRequest = catalog.slice(catalog.indexOf("### On request"));
    for (const name of ["update_job", "pause_job", "resume_job", "remove_job", "run_job_now"]) {
      expect(onRequest).toContain(`- ${name}: `);
    }
  });

  test("calling a forbidden tool by name is refused like an unknown tool, and tool_help will not describe it", async () => {
    const { app, fake } = await setup();
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "shell", arguments: { command: "echo pwned > /tmp/fermix-guest-pwned" } },
        { name: "file_read", arguments: { path: "/etc/hostname" } },
        { name: "tool_help", arguments: { name: "shell" } },
      ],
    });
    fake.setDefault({ kind: "text", text: "ok" });
    await app.ask({
      key: { channel: "telegram", chat: "42" },
      text: "hi",
      caller: { trust: "guest", local: false, attended: true },
    });
    const outputs = toolOutputs(fake.requests[1]!);
    expect(outputs[0]).toBe('There is no tool named "shell" available here.');
    expect(outputs[1]).toBe('There is no tool named "file_read" available here.');
    expect(outputs[2]).toContain('There is no tool named "shell" available here');
    expect(await Bun.file("/tmp/fermix-guest-pwned").exists()).toBe(false);
  });

  test("the owner's surface has every built-in: on the wire, or named in the prompt's On request list", async () => {
    const { app, fake } = await setup();
    await app.ask({
      key: { channel: "cli", chat: "o" },
      text: "hi",
      caller: { trust: "operator", local: true, attended: true },
    });
    const body = fake.requests[0]!.body;
    const offered: string[] = body.tools.map((t: any) => t.name);
    const onRequest = body.instructions.slice(body.instructions.indexOf("### On request"));
    for (const name of FORBIDDEN) {
      expect(offered.includes(name) || onRequest.includes(`- ${name}: `)).toBe(true);
    }
  });
});
