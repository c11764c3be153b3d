import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createComputerUseTool } from "../../src/capabilities/builtins/computer-use.ts";
import type { ToolContext } from "../../src/capabilities/tool.ts";
import type { ChannelAdapter } from "../../src/channels/channel.ts";
import { createActionApprovals } from "../../src/computer-use/action-approvals.ts";
import { createComputerUseSessions } from "../../src/computer-use/session.ts";
import { computerUseSettings } from "../../src/computer-use/settings.ts";
import type { Config } from "../../src/config/schema.ts";
import { createApprovalNotices } from "../../src/gateway/approval-notices.ts";
import { approvalFromNotice } from "../../src/gateway/approval-request.ts";
import { fakeDesktop } from "../fake/desktop-driver.ts";

/*
 * computer_use's question to the owner, as a local client reads it (kind "computer_use": the window, the action and
 * why, the token): pinned to the tool's own wording, which the chat channels' buttons read the same way.
 */
describe("a computer-use approval notice in structured form", () => {
  test("the tool's notice parses to kind computer_use with its token", async () => {
    const desk = fakeDesktop({ focused: { wmClass: ["xterm", "XTerm"], title: "sh" } });
    const base = computerUseSettings({ fermix_core: { computer_use: { enabled: true } } } as Config);
    const approvals = createActionApprovals();
    const tool = createComputerUseTool({
      driver: desk.driver,
      settings: { ...base, screenshotAfter: false },
      sessions: createComputerUseSessions(),
      approvals,
    });
    let notice = "";
    const conversation = { channel: "cli", chat: "s1" };
    const ctx = {
      conversation,
      signal: new AbortController().signal,
      notify: (text: string) => {
        notice = text;
      },
      sandbox: { mode: "open" },
    } as unknown as ToolContext;
    const pending = tool.execute(v.parse(tool.parameters, { action: "type", text: "make deploy" }), ctx);
    while (!notice) await new Promise((resolve) => setImmediate(resolve));
    const approval = approvalFromNotice(notice);
    expect(approval).toEqual({
      kind: "computer_use",
      path: '"sh" (XTerm), a terminal',
      reason: 'type "make deploy"',
      token: expect.stringMatching(/^[A-Z0-9]{8}$/),
    });
    expect(approvals.confirm(approval!.token, conversation)).toEqual({
      ok: true,
      action: 'type "make deploy" into "sh" (XTerm), a terminal',
    });
    expect(await pending).toMatchObject({ content: "Done: type 11 characters." });
  });
});

const CHAT = { channel: "telegram", chat: "1" };

describe("a computer-use question in a chat", () => {
  test("is sent with the one-tap Approve/Deny buttons, its token line kept out of the visible text", async () => {
    const sent: Array<{ markdown: string; buttons?: Array<{ text: string; data: string }> }> = [];
    const adapter = {
      name: "telegram",
      capabilities: { approveButtons: true },
      send: async (_target: unknown, message: (typeof sent)[number]) => {
        sent.push(message);
      },
    } as unknown as ChannelAdapter;
    const notices = createApprovalNotices({ now: () => 0, reply: async () => {}, log: { warn() {} } });
    const notice =
      'fermix asks to use the computer: press Return into "sh" (XTerm), a terminal\n' +
      "Confirm with /confirm ABCDEFGH, refuse with /deny ABCDEFGH (within 5 min).";
    await notices.send(adapter, { chatId: "1" }, { conversation: CHAT, notice, text: "go", images: [] });
    expect(sent).toEqual([
      {
        markdown: 'fermix asks to use the computer: press Return into "sh" (XTerm), a terminal',
        buttons: [
          { text: "✅ Approve", data: "grant:ABCDEFGH" },
          { text: "❌ Deny", data: "deny:ABCDEFGH" },
        ],
      },
    ]);
  });
});
