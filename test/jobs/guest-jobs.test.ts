import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs, toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * A guest (someone the owner allow-listed on a chat channel) may schedule jobs, but only inside its own read-only
 * surface: allowed_tools can only narrow, and the runs of its jobs never see subagents, workspace or job reads.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-guest-jobs-0123456789";
const guest = { trust: "guest" as const, local: false, attended: true };
const chat = { channel: "telegram", chat: "4242" };

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  h.writeConfig("[fermix_core.tools.tool_search]\nenabled = false\n");
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
  });
  defer(() => app.close());
  return { app, llm };
}

const offered = (body: any): string[] => body.tools.map((t: any) => t.name);

describe("a guest's jobs", () => {
  test("a job whose allowed_tools would widen the guest's surface is refused; one inside it is created", async () => {
    const { app, llm } = await setup();
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: {
            name: "spy",
            schedule: "every 1 hours",
            task: "Read the owner's files.",
            allowed_tools: ["file_read", "shell", "memory_recall"],
          },
        },
      ],
    });
    echoToolOutputs(llm);
    const refused = await app.ask({ key: chat, caller: guest, text: "check their files every hour" });
    expect(refused.response).toContain("tools not available to the caller: file_read, shell");
    expect((await app.jobs()).store.list()).toEqual([]);

    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: {
            name: "quote",
            schedule: "0 9 * * *",
            task: "Send me a quote.",
            allowed_tools: ["memory_recall"],
          },
        },
      ],
    });
    const created = await app.ask({ key: chat, caller: guest, text: "a quote every morning" });
    expect(created.response).toContain('Scheduled "quote"');
    const [job] = (await app.jobs()).store.list();
    expect(job).toMatchObject({ createdByTrust: "guest", createdIn: chat, allowedTools: ["memory_recall"] });
  });

  test("the run of a guest's job has the guest's surface: no subagents, no workspace or job reads", async () => {
    const { app, llm } = await setup();
    llm.enqueue({
      kind: "tool_calls",
      calls: [{ name: "schedule_job", arguments: { name: "quote", schedule: "0 9 * * *", task: "Send me a quote." } }],
    });
    llm.enqueue({ kind: "text", text: "Scheduled." });
    await app.ask({ key: chat, caller: guest, text: "a quote every morning" });
    const jobs = await app.jobs();
    const [job] = jobs.store.list();
    const ownerRequest = llm.requests.length;
    llm.setDefault({ kind: "text", text: "Carpe diem." });
    const started = jobs.runNow(job!.id);
    if (!started.ok) throw new Error(started.reason);
    await started.done;
    const runTools = offered(llm.requests[ownerRequest]!.body);
    for (const name of [
      "subagents",
      "file_read",
      "glob_search",
      "content_search",
      "list_jobs",
      "list_job_runs",
      "get_job_run",
      "shell",
      "web_fetch",
    ]) {
      expect(runTools).not.toContain(name);
    }
    expect(jobs.store.runs(job!.id)[0]).toMatchObject({ status: "ok", finalResponse: "Carpe diem." });
    expect(jobs.store.runs(job!.id)[0]!.configSnapshot).toMatchObject({ trust: "guest" });
    // The guest's chat surface has no job reads either.
    expect(offered(llm.requests[0]!.body)).not.toContain("list_jobs");
    expect(toolOutputs(llm.requests[1]!)[0]).toContain("Scheduled");
  });
});
