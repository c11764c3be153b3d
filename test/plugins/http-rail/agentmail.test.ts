import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeAgentMail } from "../../fake/plugin-apis/agentmail.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { AGENTMAIL_IP, hostDoor } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const KEY = "am_test_7f3e9c1b2a4d6f8e0c2a4b6d8f0e2c4a6b8d0f2e";
const INBOX = "agent1@agentmail.to";
const serve = useFakeServers();
const plugin = pluginOf("agentmail");

function setup(opts: { inboxes?: number; messages?: number } = {}) {
  const mail = fakeAgentMail({ key: KEY, inboxes: 1, ...opts });
  const { origin } = serve(mail.handler);
  return { mail, net: hostDoor({ [AGENTMAIL_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = KEY,
) {
  return callHttpTool({ plugin, tool: catalogTool("agentmail", tool), args, credential, net });
}

const SEND = { inbox_id: INBOX, to: ["bob@example.com"], subject: "Lunch", text: "Noon?" };

describe("agentmail reads", () => {
  test("inboxes page by page_token, 100 at a time, until no next_page_token", async () => {
    const { mail, net } = setup({ inboxes: 230 });
    const out = JSON.parse((await call(net, "agentmail_list_inboxes", {})).content);
    expect(out.truncated).toBe(false);
    expect(out.items).toHaveLength(230);
    expect(out.items[229]).toMatchObject({ inbox_id: "agent230@agentmail.to", email: "agent230@agentmail.to" });
    expect(mail.seen.map((r) => r.query.toString())).toEqual([
      "limit=100",
      "limit=100&page_token=100",
      "limit=100&page_token=200",
    ]);
    expect(mail.seen[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
  });

  test("an inbox's messages: the address is encoded in the path, labels repeat; max_pages 2 truncates", async () => {
    const { mail, net } = setup({ messages: 120 });
    const out = JSON.parse(
      (await call(net, "agentmail_list_messages", { inbox_id: INBOX, labels: ["unread"] })).content,
    );
    expect(out.truncated).toBe(true);
    expect(out.items).toHaveLength(50);
    expect(out.items.every((m: { labels: string[] }) => m.labels.includes("unread"))).toBe(true);
    expect(mail.seen).toHaveLength(2);
    expect(mail.seen[0]!.path).toBe("/v0/inboxes/agent1%40agentmail.to/messages");
    expect(mail.seen[0]!.query.toString()).toBe("labels=unread&limit=25");
    expect(mail.seen[1]!.query.get("page_token")).toBe("25");
  });
});

describe("agentmail writes", () => {
  test("send: POST .../messages/send with to as a list; the answer is {message_id, thread_id}", async () => {
    const { mail, net } = setup();
    const result = await call(net, "agentmail_send_message", SEND);
    expect(JSON.parse(result.content)).toEqual({ message_id: "<01000190abc@email.amazonses.com>", thread_id: "thr-1" });
    const [req] = mail.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/v0/inboxes/agent1%40agentmail.to/messages/send");
    expect(JSON.parse(req!.body)).toEqual({ to: ["bob@example.com"], subject: "Lunch", text: "Noon?" });
  });

  test("reply: the message id (with <, @ and >) is one encoded path segment", async () => {
    const { mail, net } = setup();
    await call(net, "agentmail_reply", { inbox_id: INBOX, message_id: "<in-3@mail.example.com>", text: "Yes." });
    expect(mail.seen[0]!.path).toBe("/v0/inboxes/agent1%40agentmail.to/messages/%3Cin-3%40mail.example.com%3E/reply");
    expect(mail.state.sent[0]).toMatchObject({ replyTo: "<in-3@mail.example.com>", text: "Yes." });
  });

  test("create inbox: unset fields are left out of the body", async () => {
    const { mail, net } = setup();
    const result = await call(net, "agentmail_create_inbox", { username: "helper", client_id: "fermix-helper-1" });
    expect(JSON.parse(result.content)).toMatchObject({ inbox_id: "helper@agentmail.to", client_id: "fermix-helper-1" });
    expect(JSON.parse(mail.seen[0]!.body)).toEqual({ username: "helper", client_id: "fermix-helper-1" });
  });
});

describe("agentmail errors, word for word", () => {
  test("401 is the API key sentence", async () => {
    const { net } = setup();
    expect(await call(net, "agentmail_list_inboxes", {}, "am_revoked")).toEqual({
      content: "API key rejected — update it with fermix plugins auth set agentmail",
      isError: true,
    });
  });

  test("403 for a key without send permission: check the key, with AgentMail's body", async () => {
    const { mail, net } = setup();
    mail.state.mode = "no_send_permission";
    expect(await call(net, "agentmail_send_message", SEND)).toEqual({
      content:
        "agentmail_send_message was refused (HTTP 403): the connected account lacks permission; it needs a " +
        "permission that was not granted; check the key's permissions, or replace it with fermix plugins auth set " +
        'agentmail. Response: {"name":"ForbiddenError","code":"missing_permission","message":"Missing required ' +
        'permission: message_send"}',
      isError: true,
    });
  });

  test("429 carries Retry-After", async () => {
    const { mail, net } = setup();
    mail.state.mode = "rate_limited";
    expect(await call(net, "agentmail_list_inboxes", {})).toEqual({
      content: "agentmail is rate limiting requests (HTTP 429); retry after 5 seconds (Retry-After: 5).",
      isError: true,
    });
  });

  test("an unknown inbox is AgentMail's 404 body", async () => {
    const { net } = setup();
    expect(
      (await call(net, "agentmail_get_message", { inbox_id: "nobody@agentmail.to", message_id: "m" })).content,
    ).toBe('agentmail_get_message failed with HTTP 404: {"name":"NotFoundError","message":"Inbox not found"}');
  });
});
