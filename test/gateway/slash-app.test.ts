import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * Slash commands through the gateway in front of the real app (real turns, a fake model on loopback, a test
 * channel): the ones whose work reaches past the reply — /new, /background, /stop of background work, /ultra.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-slash-app-0123456789";
const OWNER = "7";
const GUEST = "8";
const SUB = "You are a focused sub-agent";

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
  const gateway = createGateway({
    ask: app.ask,
    slash: app.slash,
    stopBackground: app.stopBackground,
    media: {},
    log: { info() {}, warn() {} },
    now: Date.now,
  });
  const channel = createTestChannel({ name: "telegram" });
  const access = channelAccess(
    "telegram",
    { owner_user_id: OWNER, allowed_user_ids: [GUEST], command_allowlist: ["ultra"] },
    { streaming: "off" },
  );
  if (!access.ok) throw new Error(access.reason);
  await channel.adapter.start(gateway.attach(channel.adapter, access.access));
  const texts = (chatId: string) => channel.shown(chatId).map((m) => m.markdown);
  /** Sends `text` and resolves with the chat's next message. */
  const say = async (chatId: string, text: string, senderId = OWNER) => {
    const before = texts(chatId).length;
    channel.push({ chatId, senderId, text });
    await channel.waitFor(() => texts(chatId).length > before);
    return texts(chatId)[before]!;
  };
  return { h, app, llm, channel, texts, say };
}

function userTexts(req: RecordedRequest): string[] {
  return (req.body.input as any[])
    .filter((item) => item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : [{ text: item.content }]))
    .map((part) => String(part.text ?? ""));
}

describe("slash commands on the real app, through the gateway", () => {
  test("/whoami answers from the chat; a guest is refused what is not on its allowlist", async () => {
    const { say } = await setup();
    expect(await say("c", "/whoami")).toBe("trust: owner\nchannel: telegram\nchat: c\nsender: 7");
    expect(await say("g", "/whoami", GUEST)).toContain("sender: 8");
    expect(await say("g", "/soul", GUEST)).toBe("This command requires owner permissions.");
    expect(await say("g", "/grant /tmp", GUEST)).toBe("This command requires owner permissions.");
  });

  test("/new: the next turn no longer sees the earlier ones, which stay in memory.db", async () => {
    const { h, llm, say } = await setup();
    llm.setDefault((req) => ({ kind: "text", text: `echo ${userTexts(req).at(-1)}` }));
    expect(await say("c", "my cat is called Miso")).toBe("echo my cat is called Miso");
    expect(await say("c", "/new")).toStartWith("Started a new conversation. The 2 earlier messages stay in memory");
    expect(await say("c", "what is my cat called?")).toBe("echo what is my cat called?");
    expect(userTexts(llm.requests.at(-1)!)).toEqual(["what is my cat called?"]);
    const db = new Database(join(h.home, "memory.db"), { readonly: true });
    const stored = db.query("SELECT text FROM messages WHERE chat = 'c' ORDER BY id").all() as Array<{ text: string }>;
    db.close();
    expect(stored.map((r) => r.text)).toContain("my cat is called Miso");
  });

  test("/bg runs a detached turn and posts its result; /stop ends background work", async () => {
    const { llm, channel, texts, say } = await setup();
    llm.enqueue({ kind: "text", text: "The answer, in the background." });
    const ack = await say("c", "/bg look it up");
    const id = /^Started background work (bg_[0-9a-f]{6})\./.exec(ack)![1]!;
    await channel.waitFor(() => texts("c").length === 2);
    expect(texts("c")[1]).toBe(`Background work ${id} done:\nThe answer, in the background.`);
    expect(await say("c", "/tasks")).toBe(`• ${id} [done] /bg: look it up`);

    llm.enqueue({ kind: "hang" });
    await say("c", "/bg this one takes forever");
    await llm.waitForRequests(2);
    expect(await say("c", "/tasks")).toContain("[running] /bg: this one takes forever");
    expect(await say("c", "/stop")).toBe(
      "Stopped Fermix execution — cancelled 0 active turns, cleared 0 queued messages, and stopped 1 background tasks. Scheduled jobs and voice are not affected by /stop.",
    );
    expect(await say("c", "/stop")).toBe("No active Fermix execution to stop.");
  });

  test("/ultra runs its prompt as a normal turn with the exhaustive addendum and wider subagent caps", async () => {
    const { llm, say } = await setup();
    const tasks = Array.from({ length: 15 }, (_, i) => ({ task: `probe ${i}` }));
    llm.setDefault((req) => {
      if (String(req.body.instructions).startsWith(SUB)) return { kind: "text", text: "probed" };
      const outputs = toolOutputs(req);
      return outputs.length
        ? { kind: "text", text: outputs.join("\n").slice(0, 200) }
        : { kind: "tool_calls", calls: [{ name: "subagents", arguments: { tasks } }] };
    });
    const normal = await say("n", "fan out");
    expect(normal).toContain("at most 10 tasks per call in this turn (an /ultra turn allows 50)");
    const ultra = await say("u", "/ultra fan out");
    expect(ultra).toStartWith("## Task 1\nprobed");
    const main = llm.requests.filter((r) => !String(r.body.instructions).startsWith(SUB));
    expect(String(main.at(-1)!.body.instructions)).toContain("## Exhaustive mode (/ultra)");
    expect(String(main[0]!.body.instructions)).not.toContain("Exhaustive mode");
    expect(userTexts(main.at(-1)!).at(-1)).toBe("fan out");
    expect(llm.requests.filter((r) => String(r.body.instructions).startsWith(SUB))).toHaveLength(15);
  });
});
