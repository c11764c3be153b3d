import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeSlack, type SlackCall, startFakeSlack } from "../fake/slack-api.ts";
import type { RecordedRequest } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The Slack channel end to end in Socket Mode: the compiled daemon opens Socket Mode on the fake (api_base_url →
 * apps.connections.open → its websocket), acknowledges the events the fake sends, and answers through the fake's
 * Web API with a fake model. Everything waits on something the fakes record; nothing sleeps.
 */

const KEY = "sk-test-slack-0123456789abcdef";
const OWNER = "U0OWNER001";
const GUEST = "U0GUEST002";
const STRANGER = "U0STRANGER3";
const defer = cleanupAfterEach();

async function setup(options: { config?: string[] } = {}) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const slack = await startFakeSlack();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => slack.close());
  h.writeConfig(
    [
      "[fermix_channels.slack]",
      "enabled = true",
      `bot_token = "${slack.botToken}"`,
      `app_token = "${slack.appToken}"`,
      `owner_user_id = "${OWNER}"`,
      `allowed_user_ids = ["${GUEST}"]`,
      `api_base_url = "${slack.apiUrl}"`,
      ...(options.config ?? ['streaming = "off"']),
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    // Whatever happened, no token reaches the daemon's output or its log.
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [slack.botToken, slack.appToken]) {
      expect(daemon.stderr()).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
  await slack.waitForHello();
  return { h, llm, slack, env, daemon, cli: { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME } };
}

/** The next chat.postMessage to `channel` from now on (create it before whatever causes it). */
function nextPost(slack: FakeSlack, channel: string, predicate: (c: SlackCall) => boolean = () => true) {
  const mark = slack.calls.length;
  return slack.waitForCall(
    "chat.postMessage",
    (c) => slack.calls.indexOf(c) >= mark && c.params.channel === channel && predicate(c),
  );
}

/** `user` writes `text` in their DM with the app (or `channel`); resolves once the daemon acknowledged it. */
async function said(slack: FakeSlack, user: string, text: string) {
  const event = slack.message({ user, text });
  const envelope = await slack.sendEvent(event);
  await envelope.acked;
  return event;
}

const toolNames = (req: RecordedRequest): string[] => (req.body.tools ?? []).map((t: { name: string }) => t.name);

describe("Slack in Socket Mode through the compiled daemon", () => {
  test("the owner's DM is answered in the DM as mrkdwn, the event acknowledged at once", async () => {
    const { llm, slack, cli } = await setup();
    llm.setDefault({ kind: "text", text: "Hello **owner** — see [docs](https://example.com)." });
    const channel = slack.dm(OWNER);
    const reply = nextPost(slack, channel);
    const event = await said(slack, OWNER, "hi fermix");
    const post = await reply;
    expect(post.status).toBe(200);
    expect(post.answer.ok).toBe(true);
    expect(post.tokenVia).toBe("header");
    expect(post.params).toMatchObject({
      channel,
      text: "Hello *owner* — see <https://example.com|docs>.",
      unfurl_links: "false",
    });
    // A DM is answered in the DM itself, not in a thread.
    expect(post.params.thread_ts).toBeUndefined();
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("hi fermix");
    expect(slack.envelopes.find((e) => e.event.ts === event.ts)!.attempts).toBe(1);

    const status = await runFermix(["channels", "status", "--json"], { env: cli });
    const row = JSON.parse(status.stdout).result.channels.find((c: { name: string }) => c.name === "slack");
    expect(row).toMatchObject({ state: "running", connected: true, degraded: null });
  });

  test("a stranger gets nothing and reaches no model; a guest is answered with the guest surface only", async () => {
    const { llm, slack, h } = await setup();
    llm.setDefault({ kind: "text", text: "Hi guest." });
    const guestDm = slack.dm(GUEST);
    const reply = nextPost(slack, guestDm);
    await said(slack, STRANGER, "stranger here");
    await said(slack, GUEST, "guest here");
    expect((await reply).params.text).toBe("Hi guest.");
    expect(slack.callsOf("chat.postMessage")).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]!.body;
    expect(JSON.stringify(body.input)).not.toContain("stranger here");
    for (const name of ["shell", "file_read", "file_write", "web_fetch", "web_search", "request_directory_access"]) {
      expect(toolNames(llm.requests[0]!)).not.toContain(name);
    }
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain(`dropped a message from ${STRANGER}`);
  });

  test("a mention in a channel is answered in its thread; the next message in the thread continues it", async () => {
    const { llm, slack } = await setup();
    const channel = slack.channel();
    llm.setDefault({ kind: "text", text: "On it." });
    const first = nextPost(slack, channel);
    const mention = slack.mention({ user: OWNER, channel, text: "summarise the thread" });
    await (await slack.sendEvent(mention)).acked;
    expect((await first).params).toMatchObject({ channel, thread_ts: mention.ts, text: "On it." });
    expect(JSON.stringify(llm.requests[0]!.body.input)).toContain("summarise the thread");
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("U0FERMIXBOT");

    llm.setDefault({ kind: "text", text: "Still here." });
    const second = nextPost(slack, channel);
    const reply = slack.mention({ user: OWNER, channel, text: "and then?", threadTs: mention.ts });
    await (await slack.sendEvent(reply)).acked;
    expect((await second).params).toMatchObject({ thread_ts: mention.ts, text: "Still here." });
    // One conversation: the second turn sees the first.
    expect(JSON.stringify(llm.requests[1]!.body.input)).toContain("summarise the thread");
  });

  test("a 100,000-character answer arrives as messages of at most 40,000 characters, in order", async () => {
    const { llm, slack } = await setup();
    const paragraphs = Array.from(
      { length: 120 },
      (_, i) => `**Part ${i + 1}.** ${"Plain words go here. ".repeat(40)}`,
    );
    const answer = paragraphs.join("\n\n");
    expect(answer.length).toBeGreaterThan(100_000);
    llm.setDefault({ kind: "text", text: answer });
    const channel = slack.dm(OWNER);
    const last = nextPost(slack, channel, (c) => String(c.params.text).includes("*Part 120.*"));
    await said(slack, OWNER, "write a lot");
    await last;
    const posts = slack.callsOf("chat.postMessage");
    expect(posts).toHaveLength(3);
    // The fake refuses anything over 40,000 characters (msg_too_long), as Slack does.
    expect(posts.map((p) => p.answer.ok)).toEqual([true, true, true]);
    expect(posts.every((p) => p.params.text.length <= 40_000)).toBe(true);
    const text = posts.map((p) => p.params.text).join("\n\n");
    const order = paragraphs.map((_, i) => text.indexOf(`*Part ${i + 1}.*`));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(posts.every((p) => p.params.text.startsWith("*Part "))).toBe(true);
  });

  test("a reaction is set by shortcode on the message it answers, and is the whole answer", async () => {
    const { llm, slack } = await setup();
    llm.enqueue({ kind: "tool_calls", calls: [{ name: "react", arguments: { emoji: "🎉" } }] });
    const reacted = slack.waitForCall("reactions.add");
    const event = await said(slack, OWNER, "we shipped it!");
    const call = await reacted;
    expect(call.answer).toEqual({ ok: true });
    expect(call.params).toEqual({ channel: event.channel, name: "tada", timestamp: event.ts });
    const react = llm.requests[0]!.body.tools.find((t: { name: string }) => t.name === "react");
    expect(react.parameters.properties.emoji.enum).toEqual(expect.arrayContaining(["👍", "🎉", "👀"]));
    expect(toolNames(llm.requests[0]!)).toContain("send_attachment");
    expect(llm.requests).toHaveLength(1);
    expect(slack.callsOf("chat.postMessage")).toHaveLength(0);
  });

  test("a directory request shows the tap-to-copy /confirm line (no buttons on Slack); /confirm grants and re-runs", async () => {
    const { llm, slack, h } = await setup();
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
    const channel = slack.dm(OWNER);
    const prompt = nextPost(slack, channel, (c) => String(c.params.text).includes("/confirm "));
    await said(slack, OWNER, "summarise my data folder");
    const shown = (await prompt).params;
    expect(shown.text).toContain(data);
    expect(shown.blocks).toBeUndefined();
    const token = /\/confirm ([A-Z0-9]{6,12})\b/.exec(shown.text)?.[1];
    expect(token).toBeDefined();

    const rerun = nextPost(slack, channel, (c) => c.params.text === "Now I can read it.");
    await said(slack, OWNER, `/confirm ${token}`);
    await rerun;
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(`allowed_roots = ["${data}"]`);
  });

  test("Slack recycling the connection: the daemon reconnects and keeps answering", async () => {
    const { llm, slack } = await setup();
    slack.requestReconnect();
    await slack.waitForHello(2);
    expect(slack.callsOf("apps.connections.open")).toHaveLength(2);
    llm.setDefault({ kind: "text", text: "back" });
    const channel = slack.dm(OWNER);
    const reply = nextPost(slack, channel);
    await said(slack, OWNER, "still there?");
    expect((await reply).params.text).toBe("back");
  });

  test("a scheduled job delivers its answer to slack:<channel id>", async () => {
    const { llm, slack, cli } = await setup();
    const channel = slack.channel("C0REPORTS1");
    const isJobRun = (req: RecordedRequest) => JSON.stringify(req.body).includes("This is a scheduled run");
    llm.setDefault((req) => (isJobRun(req) ? { kind: "text", text: "All **green**." } : { kind: "text", text: "ok" }));
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "schedule_job",
          arguments: {
            name: "build",
            schedule: "0 8 * * *",
            task: "Report the build.",
            delivery_mode: "channel",
            delivery_target: `slack:${channel}`,
          },
        },
      ],
    });
    const dm = slack.dm(OWNER);
    const ok = nextPost(slack, dm);
    await said(slack, OWNER, "report the build every morning in #reports");
    await ok;
    const listed = JSON.parse((await runFermix(["jobs", "list", "--json"], { env: cli })).stdout).result.jobs;
    expect(listed).toHaveLength(1);
    const delivered = nextPost(slack, channel);
    expect((await runFermix(["jobs", "run", listed[0].id], { env: cli })).code).toBe(0);
    expect((await delivered).params).toMatchObject({ channel, text: "All *green*." });
  });
});
