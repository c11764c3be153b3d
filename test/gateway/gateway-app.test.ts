import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import type { StreamingMode } from "../../src/gateway/reply-sink.ts";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";

/*
 * The gateway in front of the real app: real turns (history, prompt, tool loop, commit) against a fake model on
 * loopback that streams its answers over the Responses wire, with a test channel in place of a platform.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-gateway-app-0123456789";
const OWNER = "7";

async function setup(streaming: StreamingMode) {
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
    media: {},
    log: { info() {}, warn() {} },
    now: Date.now,
  });
  const channel = createTestChannel({ name: "telegram" });
  const access = channelAccess("telegram", { owner_user_id: OWNER }, { streaming });
  if (!access.ok) throw new Error(access.reason);
  await channel.adapter.start(gateway.attach(channel.adapter, access.access));
  const texts = (chatId: string) => channel.shown(chatId).map((m) => m.markdown);
  return { app, llm, channel, texts, gateway };
}

/** The user messages of a Responses request, oldest first. */
function userTexts(req: RecordedRequest): string[] {
  return (req.body.input as any[])
    .filter((item) => item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : [{ text: item.content }]))
    .map((part) => String(part.text ?? ""));
}

describe("gateway on the real app", () => {
  test("each conversation's messages are answered in order, with its own history", async () => {
    const { llm, channel, texts } = await setup("off");
    llm.setDefault((req) => ({ kind: "text", text: `echo ${userTexts(req).at(-1)}` }));
    for (let i = 0; i < 3; i++) {
      channel.push({ chatId: "a", senderId: OWNER, text: `a${i}` });
      channel.push({ chatId: "b", senderId: OWNER, text: `b${i}` });
    }
    await channel.waitFor(() => texts("a").length === 3 && texts("b").length === 3);
    expect(texts("a")).toEqual(["echo a0", "echo a1", "echo a2"]);
    expect(texts("b")).toEqual(["echo b0", "echo b1", "echo b2"]);
    // The third turn in a chat saw that chat's first two, and nothing of the other chat.
    const last = llm.requests.filter((r) => userTexts(r).at(-1) === "a2")[0]!;
    expect(userTexts(last)).toEqual(["a0", "a1", "a2"]);
  });

  test("block streaming: the commentary before a tool call is its own message, then the answer", async () => {
    const { llm, channel, texts } = await setup("block");
    llm.enqueue(
      { kind: "tool_calls", text: "Let me check that first.", calls: [{ name: "no_such_tool", arguments: {} }] },
      { kind: "text", text: "Checked: the answer is 42.", chunks: ["Checked: ", "the answer ", "is 42."] },
    );
    channel.push({ chatId: "c", senderId: OWNER, text: "what is it?" });
    await channel.waitFor(() => texts("c").length === 2);
    expect(texts("c")).toEqual(["Let me check that first.", "Checked: the answer is 42."]);
  });

  test("draft streaming: one message, sealed to the final answer", async () => {
    const { llm, channel, texts, gateway } = await setup("draft");
    const final = "Here is a longer answer that streams in several pieces before it is complete.";
    llm.enqueue({ kind: "text", text: final, chunks: final.match(/.{1,12}/g)! });
    channel.push({ chatId: "d", senderId: OWNER, text: "tell me" });
    await channel.waitFor(() => texts("d")[0] === final);
    await gateway.idle();
    expect(channel.all("d")).toHaveLength(1);
    expect(channel.events.filter((e) => e.kind === "send")).toHaveLength(1);
  });
});
