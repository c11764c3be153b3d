import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import type { StreamingMode } from "../../src/gateway/reply-sink.ts";
import { newestTraceFile } from "../../src/observability/trace-files.ts";
import type { TraceType } from "../../src/observability/traces.ts";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";

/*
 * Issue 27 item 4 on the real app: a reasoning model's summary (over the Responses wire, from the fake on loopback)
 * becomes `💭` lines in block streaming only, never reaches the history, and every reply writes channel_stream
 * trace lines in the turn's session.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-gateway-thoughts-0123456789";
const OWNER = "7";
const SUMMARY = [
  "**Looking up the calendar**\n\nThe owner asks about Friday; check what is booked.",
  "**Drafting the reply**\n\nKeep it to one line.",
];
const ANSWER = "Friday is free after 3pm.";

async function setup(streaming: StreamingMode) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  // An effort makes the wire ask for the reasoning summary (the fake, like OpenAI, writes none unless asked).
  h.writeConfig(
    '[fermix_core.tools.tool_search]\nenabled = false\n[fermix_core.providers.openai]\nreasoning_effort = "low"\n',
  );
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
  });
  defer(() => app.close());
  const gateway = createGateway({
    ask: app.ask,
    slash: app.slash,
    media: {},
    traces: app.traces,
    log: { info() {}, warn() {} },
    now: Date.now,
  });
  const channel = createTestChannel({ name: "telegram" });
  const access = channelAccess("telegram", { owner_user_id: OWNER }, { streaming });
  if (!access.ok) throw new Error(access.reason);
  await channel.adapter.start(gateway.attach(channel.adapter, access.access));
  const texts = (chatId: string) => channel.shown(chatId).map((m) => m.markdown);
  const traces = (type: TraceType): Array<Record<string, any>> => {
    const file = newestTraceFile(join(h.home, "traces"), type);
    if (!file) return [];
    return readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  };
  return { llm, channel, texts, gateway, traces };
}

/** Everything a Responses request carries as text: every message's parts, the reasoning items included. */
function carried(req: RecordedRequest): string {
  return JSON.stringify(req.body.input);
}

describe("reasoning summaries on a chat", () => {
  test("block streaming: each heading is its own 💭 line before the answer, traced open to seal in the turn's session", async () => {
    const { llm, channel, texts, gateway, traces } = await setup("block");
    llm.enqueue({ kind: "text", text: ANSWER, reasoning: SUMMARY });
    channel.push({ chatId: "c", senderId: OWNER, text: "am I free on Friday?" });
    await channel.waitFor(() => texts("c").includes(ANSWER));
    await gateway.idle();

    expect(llm.requests[0]!.body.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(texts("c")).toEqual(["💭 Looking up the calendar", "💭 Drafting the reply", ANSWER]);
    // The thoughts never ring the phone; the answer does.
    const sends = channel.events.flatMap((e) => (e.kind === "send" ? [e.text] : []));
    expect(sends.map((t) => t.silent === true)).toEqual([true, true, false]);

    const session = traces("agent_event").find((l) => l.event === "turn_start")!.session_id;
    expect(session).toStartWith("main-");
    const lines = traces("channel_stream");
    expect(lines.map((l) => l.phase)).toEqual(["open", "block", "block", "seal"]);
    for (const line of lines) expect(line).toMatchObject({ session_id: session, channel: "telegram", mode: "block" });
    expect(lines[1]).toMatchObject({ thought: true });
    expect(lines.at(-1)).toMatchObject({ chars: ANSWER.length });
  });

  test("the 💭 lines never join the history: the next request carries the answer, not them", async () => {
    const { llm, channel, texts, gateway } = await setup("block");
    llm.enqueue({ kind: "text", text: ANSWER, reasoning: SUMMARY }, { kind: "text", text: "You're welcome." });
    channel.push({ chatId: "h", senderId: OWNER, text: "am I free on Friday?" });
    await channel.waitFor(() => texts("h").includes(ANSWER));
    channel.push({ chatId: "h", senderId: OWNER, text: "thanks" });
    await channel.waitFor(() => texts("h").includes("You're welcome."));
    await gateway.idle();

    const next = llm.requests[1]!;
    expect(carried(next)).not.toContain("💭");
    const said = (next.body.input as any[])
      .filter((item) => item.type === "message" && item.role === "assistant")
      .flatMap((item) => item.content.map((part: { text: string }) => part.text));
    expect(said).toEqual([ANSWER]);
  });

  test.each(["draft", "off"] as const)("%s: no 💭 line is sent, and the stream is still traced", async (mode) => {
    const { llm, channel, texts, gateway, traces } = await setup(mode);
    const long = `${ANSWER} Nothing else is booked that week, so any afternoon works too.`;
    llm.enqueue({ kind: "text", text: long, reasoning: SUMMARY, chunks: long.match(/.{1,12}/g)! });
    channel.push({ chatId: "d", senderId: OWNER, text: "am I free on Friday?" });
    await channel.waitFor(() => texts("d")[0] === long);
    await gateway.idle();

    expect(channel.all("d").map((m) => m.markdown)).toEqual([long]);
    expect(channel.events.some((e) => e.kind !== "typing" && "text" in e && e.text.markdown.includes("💭"))).toBe(
      false,
    );
    const lines = traces("channel_stream");
    expect(lines[0]).toMatchObject({ phase: "open", channel: "telegram", mode });
    expect(lines.at(-1)).toMatchObject({ phase: "seal", mode });
    expect(lines.filter((l) => l.phase === "block")).toEqual([]);
    const session = traces("agent_event").find((l) => l.event === "turn_start")!.session_id;
    for (const line of lines) expect(line.session_id).toBe(session);
  });
});
