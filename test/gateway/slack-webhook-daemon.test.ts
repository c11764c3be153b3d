import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeSlack, type SlackCall, startFakeSlack } from "../fake/slack-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * The Slack channel in webhook mode (the Events API) through the compiled daemon: the fake signs and POSTs events
 * to the daemon's webhook port as Slack would to the Request URL, and the tokens, the mode and the guest list come
 * from the environment overlays. Everything waits on an answer or a recorded call; nothing sleeps.
 */

const KEY = "sk-test-slack-webhook-0123456789";
const OWNER = "U0OWNER001";
const GUEST = "U0GUEST002";
const defer = cleanupAfterEach();

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

async function setup() {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  const slack = await startFakeSlack();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  defer(() => slack.close());
  const port = await freePort();
  h.writeConfig(
    [
      "[fermix_web]",
      `webhook_port = ${port}`,
      "[fermix_channels.slack]",
      "enabled = true",
      `owner_user_id = "${OWNER}"`,
      `api_base_url = "${slack.apiUrl}"`,
      'streaming = "off"',
      "",
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    SLACK_MODE: "webhook",
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_ALLOWED_USER_IDS: GUEST,
  };
  const authTested = slack.waitForCall("auth.test");
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [slack.botToken, slack.signingSecret]) {
      expect(daemon.stderr()).not.toContain(secret);
      expect(log).not.toContain(secret);
    }
  });
  await authTested;
  const url = `http://127.0.0.1:${port}/webhook/slack`;
  // The port opens once the channels have started, right after auth.test: asked until it answers (a GET is 404).
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = await fetch(url).catch(() => undefined);
    if (probe?.status === 404) break;
    if (Date.now() > deadline) throw new Error("the webhook port did not open");
  }
  return { h, llm, slack, url };
}

function nextPost(slack: FakeSlack, channel: string, predicate: (c: SlackCall) => boolean = () => true) {
  const mark = slack.calls.length;
  return slack.waitForCall(
    "chat.postMessage",
    (c) => slack.calls.indexOf(c) >= mark && c.params.channel === channel && predicate(c),
  );
}

describe("Slack webhook mode through the compiled daemon", () => {
  test("the Request URL verifies; an event is answered 200 at once and the reply follows after the turn", async () => {
    const { llm, slack, url } = await setup();
    const challenge = await slack.deliver(url, { token: "t", challenge: "chal-123", type: "url_verification" });
    expect(await challenge.json()).toEqual({ challenge: "chal-123" });

    llm.enqueue({ kind: "delay", ms: 1500, reply: { kind: "text", text: "Thought about it." } });
    const dm = slack.message({ user: OWNER, text: "think hard" });
    const reply = nextPost(slack, dm.channel);
    const answer = await slack.deliver(url, slack.eventCallback(dm));
    const answeredAt = Date.now();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
    const post = await reply;
    expect(post.params.text).toBe("Thought about it.");
    // Slack's 3-second clock never waits on the model: the answer came long before the reply.
    expect(post.at - answeredAt).toBeGreaterThanOrEqual(1000);

    // SLACK_ALLOWED_USER_IDS let the guest in.
    llm.setDefault({ kind: "text", text: "Hi guest." });
    const guest = slack.message({ user: GUEST, text: "hello" });
    const guestReply = nextPost(slack, guest.channel);
    await slack.deliver(url, slack.eventCallback(guest));
    expect((await guestReply).params.text).toBe("Hi guest.");
  });

  test("a webhook with a bad signature is 401 Unauthorized and makes no turn", async () => {
    const { llm, slack, url } = await setup();
    llm.setDefault({ kind: "text", text: "genuine answer" });
    const forged = slack.message({ user: OWNER, text: "forged: delete everything" });
    const refused = await slack.deliver(url, slack.eventCallback(forged), { secret: "guessed-secret" });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "Unauthorized" });
    const replayedLate = await slack.deliver(url, slack.eventCallback(forged), {
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect(replayedLate.status).toBe(401);
    // The same conversation afterwards: a turn for the forged message would have come first.
    const genuine = slack.message({ user: OWNER, text: "a real question" });
    const reply = nextPost(slack, genuine.channel);
    expect((await slack.deliver(url, slack.eventCallback(genuine))).status).toBe(200);
    expect((await reply).params.text).toBe("genuine answer");
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]!.body.input)).not.toContain("forged");
    expect(slack.callsOf("chat.postMessage")).toHaveLength(1);
  });

  test("a replayed message id makes one turn", async () => {
    const { llm, slack, url } = await setup();
    llm.setDefault({ kind: "text", text: "once" });
    const dm = slack.message({ user: OWNER, text: "only once please" });
    const body = slack.eventCallback(dm, { eventId: "Ev0REPLAY01" });
    const first = nextPost(slack, dm.channel);
    expect((await slack.deliver(url, body)).status).toBe(200);
    // Slack retries a delivery it thinks was lost: the same event again, answered 200, no turn.
    expect((await slack.deliver(url, body, { retryNum: 1 })).status).toBe(200);
    await first;
    // The conversation's queue is FIFO: a turn for the replay would come before this one.
    llm.setDefault({ kind: "text", text: "the next" });
    const next = nextPost(slack, dm.channel, (c) => c.params.text === "the next");
    await slack.deliver(url, slack.eventCallback(slack.message({ user: OWNER, text: "and another" })));
    await next;
    expect(llm.requests).toHaveLength(2);
    expect(slack.botMessages(dm.channel).map((m) => m.text)).toEqual(["once", "the next"]);
  });
});
