import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type DiscordCall, type FakeDiscord, type FakeUser, startFakeDiscord } from "../fake/discord-api.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The Discord channel end to end: the compiled daemon keeps a gateway session with the fake Discord (heartbeats,
 * resume) and answers over its REST API with a fake model. Everything waits on a frame or a call the fakes
 * record; nothing sleeps.
 */

const KEY = "sk-test-discord-0123456789abcdef";
const OWNER: FakeUser = { id: "111111111111111111", username: "owner", global_name: "The Owner" };
const GUEST: FakeUser = { id: "222222222222222222", username: "guest" };
const STRANGER: FakeUser = { id: "333333333333333333", username: "stranger" };
const OTHER_BOT: FakeUser = { id: "444444444444444444", username: "otherbot", bot: true };
const OWNER_DM = "711111111111111111";
const GUILD = "900000000000000001";
const GENERAL = "910000000000000001";
const SEND = "POST /channels/:channel/messages";
const CALLBACK = "POST /interactions/:interaction/:token/callback";
const defer = cleanupAfterEach();

async function setup(
  options: {
    config?: (dc: FakeDiscord) => string[];
    beforeStart?: (dc: FakeDiscord) => void;
    /** Wait for the daemon's gateway session (READY) before the test goes on. */
    session?: boolean;
  } = {},
) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const dc = await startFakeDiscord();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => dc.close());
  h.writeConfig(
    [
      "[fermix_channels.discord]",
      "enabled = true",
      `owner_user_id = "${OWNER.id}"`,
      `allowed_user_ids = ["${GUEST.id}"]`,
      `api_base_url = "${dc.baseUrl}"`,
      ...(options.config?.(dc) ?? [`bot_token = "${dc.token}"`, 'streaming = "off"']),
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  options.beforeStart?.(dc);
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    // Whatever happened, the bot token never reaches the daemon's log.
    expect(daemon.stderr()).not.toContain(dc.token);
  });
  if (options.session !== false) await dc.waitForSession();
  return { h, llm, dc, env, daemon };
}

/** The next message the bot posts in `channel` after this call (create it before whatever causes it). */
function nextReply(dc: FakeDiscord, channel: string, predicate: (c: DiscordCall) => boolean = () => true) {
  const mark = dc.calls.length;
  return dc.waitForCall(
    SEND,
    (c) => dc.calls.indexOf(c) >= mark && c.params.channel === channel && c.status === 200 && predicate(c),
  );
}

const mention = (dc: FakeDiscord, text: string) => `<@${dc.bot.id}> ${text}`;
const codepoints = (text: string) => [...text].length;

describe("Discord through the compiled daemon", () => {
  test("the owner's DM is answered as a reply that pings nobody, after typing; Identify asked for the intents", async () => {
    const { llm, dc } = await setup();
    llm.setDefault({ kind: "text", text: "Hello **owner**. @everyone" });
    const reply = nextReply(dc, OWNER_DM);
    const said = dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hi fermix" });
    const sent = await reply;
    expect(sent.body).toEqual({
      content: "Hello **owner**. @everyone",
      allowed_mentions: { parse: [], replied_user: true },
      message_reference: { message_id: said.id, channel_id: OWNER_DM, fail_if_not_exists: false },
    });
    expect(sent.headers.authorization).toBe(`Bot ${dc.token}`);
    expect(sent.headers["user-agent"]).toStartWith("DiscordBot (");
    expect(dc.callsOf("POST /channels/:channel/typing")[0]!.params.channel).toBe(OWNER_DM);
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("hi fermix");
    const identify = dc.gateway.frames.find((f) => f.op === 2)!;
    expect(identify.d.token).toBe(dc.token);
    expect(identify.d.intents).toBe(37377);
    expect(dc.callsOf("GET /users/@me")).toHaveLength(1);
    expect(dc.callsOf("GET /gateway/bot").length).toBeGreaterThanOrEqual(1);
  });

  test("in a server only a mention is answered, stripped; bots and strangers get nothing; a guest gets no tools", async () => {
    const { llm, dc, h } = await setup();
    llm.setDefault({ kind: "text", text: "Hi guest." });
    // One channel is one conversation and one queue: anything let through before the guest would be answered first.
    const reply = nextReply(dc, GENERAL);
    dc.userMessage({ channelId: GENERAL, guildId: GUILD, author: OWNER, content: "just chatting, not to the bot" });
    dc.userMessage({
      channelId: GENERAL,
      guildId: GUILD,
      author: OTHER_BOT,
      content: mention(dc, "beep"),
      mentionsBot: true,
    });
    dc.userMessage({
      channelId: GENERAL,
      guildId: GUILD,
      author: STRANGER,
      content: mention(dc, "stranger here"),
      mentionsBot: true,
    });
    dc.userMessage({
      channelId: GENERAL,
      guildId: GUILD,
      author: GUEST,
      content: mention(dc, "guest here"),
      mentionsBot: true,
    });
    expect((await reply).body.content).toBe("Hi guest.");
    expect(dc.callsOf(SEND)).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]!.body;
    const input = JSON.stringify(body.input);
    expect(input).toContain("guest here");
    for (const never of ["<@", "just chatting", "beep", "stranger here"]) expect(input).not.toContain(never);
    const tools: string[] = (body.tools ?? []).map((t: { name: string }) => t.name);
    for (const name of ["shell", "file_read", "file_write", "web_fetch", "web_search", "request_directory_access"]) {
      expect(tools).not.toContain(name);
    }
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(`dropped a message from ${STRANGER.id}`);
  });

  test("a long answer goes as ordered chunks of at most 2,000 code points, only the first a pinging reply", async () => {
    const { llm, dc } = await setup();
    // Emoji are two UTF-16 units each: a cut by units would leave the chunks far shorter than Discord allows.
    const parts = Array.from({ length: 30 }, (_, i) => `Part ${i + 1}: ${"🙂 fine ".repeat(24).trim()}`);
    const answer = parts.join("\n\n");
    expect(codepoints(answer)).toBeGreaterThan(5000);
    llm.setDefault({ kind: "text", text: answer });
    const last = nextReply(dc, OWNER_DM, (c) => String(c.body.content).includes("Part 30:"));
    const said = dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "write a lot" });
    await last;
    const chunks = dc.callsOf(SEND);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.every((c) => c.status === 200 && codepoints(c.body.content) <= 2000)).toBe(true);
    expect(chunks[0]!.body.content.length).toBeGreaterThan(2000);
    expect(chunks.map((c) => c.body.content).join("\n\n")).toBe(answer);
    expect(chunks[0]!.body.message_reference.message_id).toBe(said.id);
    expect(chunks[0]!.body.flags).toBeUndefined();
    for (const later of chunks.slice(1)) {
      expect(later.body.message_reference).toBeUndefined();
      expect(later.body.flags).toBe(1 << 12);
      expect(later.body.allowed_mentions).toEqual({ parse: [], replied_user: false });
    }
  });

  test('streaming = "draft": one message, edited in place to the whole answer', async () => {
    const { llm, dc } = await setup({ config: (fake) => [`bot_token = "${fake.token}"`, 'streaming = "draft"'] });
    const answer = `The answer, written as it streams: ${"one more sentence. ".repeat(12).trim()}`;
    llm.setDefault({ kind: "text", text: answer });
    const opened = nextReply(dc, OWNER_DM);
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "stream it" });
    const draft = await opened;
    const id = draft.answer.id as string;
    // Sealed: the message says all of it, whether the last edit or the opening send carried the end.
    const sealed = () => dc.messages.get(id)?.content === answer;
    if (!sealed()) await dc.waitForCall("PATCH /channels/:channel/messages/:message", (c) => c.body.content === answer);
    expect(dc.messages.get(id)!.content).toBe(answer);
    // A second turn after it: a stray duplicate of the first answer would have been sent before this one.
    const after = nextReply(dc, OWNER_DM);
    llm.setDefault({ kind: "text", text: "next" });
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "and?" });
    await after;
    expect(dc.callsOf(SEND)).toHaveLength(2);
    for (const edit of dc.callsOf("PATCH /channels/:channel/messages/:message")) {
      expect(edit.status).toBe(200);
      expect(edit.body.allowed_mentions).toEqual({ parse: [], replied_user: false });
    }
  });

  test("the Approve button: a guest's tap gets an ephemeral refusal and spends nothing; the owner's is answered within 3 s and grants", async () => {
    const { llm, dc, h } = await setup();
    const data = join(h.userHome, "data");
    mkdirSync(data, { recursive: true });
    llm.enqueue(
      {
        kind: "tool_calls",
        calls: [{ name: "request_directory_access", arguments: { path: data, reason: "the CSVs are there" } }],
      },
      { kind: "text", text: "I asked for access." },
    );
    llm.setDefault({ kind: "text", text: "Now I can read it." });
    const prompt = dc.waitForCall(SEND, (c) => c.body?.components !== undefined);
    dc.userMessage({
      channelId: GENERAL,
      guildId: GUILD,
      author: OWNER,
      content: mention(dc, "summarise my data folder"),
      mentionsBot: true,
    });
    const approval = await prompt;
    const [row] = approval.body.components;
    const [approve, deny] = row.components;
    expect(approve).toMatchObject({ type: 2, style: 3, label: "✅ Approve" });
    expect(deny).toMatchObject({ type: 2, style: 4, label: "❌ Deny" });
    const token = /^grant:(\w+)$/.exec(approve.custom_id)?.[1];
    expect(token).toBeDefined();
    expect(deny.custom_id).toBe(`deny:${token}`);
    expect(approval.body.content).toContain(data);
    expect(approval.body.content).not.toContain(token!);
    const messageId = approval.answer.id as string;

    // The guest taps first: only they see the refusal, and the token is still good.
    const guestTap = dc.tap({ messageId, customId: approve.custom_id, user: GUEST, guildId: GUILD });
    const refused = await dc.waitForCall(CALLBACK, (c) => c.params.interaction === guestTap.id);
    expect(refused.status).toBe(204);
    expect(refused.body).toEqual({
      type: 4,
      data: { content: "Only the owner can answer this request — your tap was not counted.", flags: 64 },
    });
    expect(refused.sinceDispatchMs!).toBeLessThan(3000);
    expect(dc.messages.get(messageId)!.components).toHaveLength(1);

    const granted = nextReply(dc, GENERAL, (c) => String(c.body.content).startsWith("Granted access"));
    const rerun = nextReply(dc, GENERAL, (c) => c.body.content === "Now I can read it.");
    const ownerTap = dc.tap({ messageId, customId: approve.custom_id, user: OWNER, guildId: GUILD });
    const acked = await dc.waitForCall(CALLBACK, (c) => c.params.interaction === ownerTap.id);
    expect(acked.status).toBe(204);
    expect(acked.body).toEqual({ type: 7, data: { components: [] } });
    expect(acked.sinceDispatchMs!).toBeLessThan(3000);
    expect(dc.messages.get(messageId)!.components).toEqual([]);
    await granted;
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(`allowed_roots = ["${data}"]`);
    await rerun;
    expect(llm.requests).toHaveLength(3);
    expect(JSON.stringify(llm.requests[2]!.body.input)).toContain("summarise my data folder");
    // The guest's tap never became a command: nothing in the channel answered it.
    expect(dc.callsOf(SEND).map((c) => c.body.content)).not.toContain("This command requires owner permissions.");
  });

  test("the gateway drops the socket mid-turn: the daemon resumes, the message sent meanwhile is answered, nothing twice", async () => {
    const { llm, dc } = await setup();
    llm.enqueue(
      { kind: "delay", ms: 1500, reply: { kind: "text", text: "first answer" } },
      { kind: "text", text: "second answer" },
      { kind: "text", text: "third answer" },
    );
    const first = nextReply(dc, OWNER_DM, (c) => c.body.content === "first answer");
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "first" });
    await llm.waitForRequests(1);
    dc.dropSocket();
    // Sent while the socket is down: Discord keeps it in the session for the resume to replay.
    const second = nextReply(dc, OWNER_DM, (c) => c.body.content === "second answer");
    const meanwhile = dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "second" });
    await dc.waitForSession(2);
    expect(dc.gateway.replayed.map((e) => e.d?.id)).toContain(meanwhile.id);
    expect(dc.gateway.starts.map((s) => s.kind)).toEqual(["ready", "resumed"]);
    const resume = dc.gateway.frames.find((f) => f.op === 6)!;
    expect(resume.d).toMatchObject({ token: dc.token, session_id: dc.gateway.starts[0]!.sessionId });
    expect(resume.d.seq).toBeGreaterThanOrEqual(2);
    await first;
    await second;
    // A third message after both: a duplicate of the second would be queued, and answered, before it.
    const third = nextReply(dc, OWNER_DM, (c) => c.body.content === "third answer");
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "third" });
    await third;
    expect(dc.callsOf(SEND).map((c) => c.body.content)).toEqual(["first answer", "second answer", "third answer"]);
    expect(llm.requests).toHaveLength(3);
    expect(dc.gateway.frames.filter((f) => f.op === 2)).toHaveLength(1);
  });

  test("heartbeats carry the last sequence, a heartbeat request is answered at once, op 7 resumes", async () => {
    const { llm, dc } = await setup();
    llm.setDefault({ kind: "text", text: "still here" });
    // The first beat may leave before READY is read (its delay is a random part of the interval); the next names it.
    const beat = await dc.gateway.waitForFrame((f) => f.op === 1 && f.d !== null);
    expect(beat.d).toBe(1);
    const reply = nextReply(dc, OWNER_DM);
    const event = dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "ping" });
    await reply;
    const asked = Date.now();
    dc.gateway.sendOp(1);
    const answered = await dc.gateway.waitForFrame((f) => f.op === 1 && f.at >= asked);
    // READY was 1, the message 2: the heartbeat names the newest the client has seen.
    expect(answered.d).toBe(2);
    expect(event.id).toBeDefined();

    dc.gateway.sendOp(7);
    await dc.waitForSession(2);
    expect(dc.gateway.starts[1]!.kind).toBe("resumed");
    const after = nextReply(dc, OWNER_DM);
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "after the reconnect" });
    expect((await after).body.content).toBe("still here");
    expect(dc.gateway.refusals).toEqual([]);
  });

  test("a 429 on the reply is waited out for its retry_after, then the reply goes once", async () => {
    const { llm, dc } = await setup({
      beforeStart: (fake) => fake.failNext(SEND, { status: 429, retryAfter: 1 }),
    });
    llm.setDefault({ kind: "text", text: "after the limit" });
    const reply = nextReply(dc, OWNER_DM);
    dc.userMessage({ channelId: OWNER_DM, author: OWNER, content: "hello" });
    const sent = await reply;
    const calls = dc.callsOf(SEND);
    expect(calls.map((c) => c.status)).toEqual([429, 200]);
    expect(calls[0]!.answer).toMatchObject({ message: "You are being rate limited.", retry_after: 1, global: false });
    expect(sent.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
    expect(sent.body.content).toBe("after the limit");
  });

  test("gateway_url skips GET /gateway/bot; `fermix channels status` shows the session", async () => {
    const { env, dc } = await setup({
      config: (fake) => [`bot_token = "${fake.token}"`, `gateway_url = "${fake.gatewayUrl}"`, 'streaming = "off"'],
    });
    expect(dc.callsOf("GET /gateway/bot")).toHaveLength(0);
    const status = await runFermix(["channels", "status", "--json"], { env });
    const channel = JSON.parse(status.stdout).result.channels.find((c: { name: string }) => c.name === "discord");
    expect(channel).toMatchObject({ state: "running", connected: true, degraded: null });
  });

  test("a revoked bot token: the channel does not start and says how to fix it; the daemon runs on", async () => {
    const { env, dc } = await setup({
      config: () => ['bot_token = "MTExMTExMTExMTExMTExMTEx.Grevok.revoked_token_revoked_token_revoked"'],
      session: false,
    });
    let channel: { state: string; reason: string | null } | undefined;
    const deadline = Date.now() + 15_000;
    // The daemon starts its channels after it listens; the CLI asks until the state settles (a safety net).
    while ((!channel || channel.state === "starting") && Date.now() < deadline) {
      const status = await runFermix(["channels", "status", "--json"], { env });
      channel = JSON.parse(status.stdout).result.channels.find((c: { name: string }) => c.name === "discord");
    }
    expect(channel!.state).toBe("failed");
    expect(channel!.reason).toStartWith("Discord rejected the bot token (HTTP 401)");
    expect(channel!.reason).toContain("fermix setup --channel discord");
    expect(dc.gateway.frames).toHaveLength(0);
  });
});
