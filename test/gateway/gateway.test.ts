import { describe, expect, test } from "bun:test";
import type { TurnInput, TurnResult } from "../../src/agent/turn.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { FermixError } from "../../src/error.ts";
import { CANNED } from "../../src/gateway/canned-replies.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway, type GatewayDeps } from "../../src/gateway/gateway.ts";
import type { StreamingMode } from "../../src/gateway/reply-sink.ts";
import { createTestChannel, settle } from "../fixture/test-channel.ts";

const OWNER = "100";
type AskInput = TurnInput & { caller: Caller };

/** A gateway on a test channel whose turns are answered by `ask`. */
function setup(ask: (input: AskInput) => Promise<TurnResult>, opts: { streaming?: StreamingMode } = {}) {
  const logs: string[] = [];
  const stopped: string[] = [];
  const deps: GatewayDeps = {
    ask,
    slash: async () => undefined,
    markStopped: (_conversation, text) => stopped.push(text),
    media: {},
    log: { info: (m) => logs.push(m), warn: (m) => logs.push(m) },
    now: Date.now,
  };
  const gateway = createGateway(deps);
  const channel = createTestChannel();
  const access = channelAccess(
    "test",
    { owner_user_id: OWNER, allowed_user_ids: ["200"] },
    { streaming: opts.streaming ?? "off" },
  );
  if (!access.ok) throw new Error(access.reason);
  void channel.adapter.start(gateway.attach(channel.adapter, access.access));
  const texts = (chatId: string) => channel.shown(chatId).map((m) => m.markdown);
  return { gateway, channel, logs, stopped, texts };
}

const answer = (response: string): TurnResult => ({ response, provider: "fake", model: "fake", turnId: "t" });

/** An ask that answers only when the test releases that message's text. */
function heldAsk() {
  const waiting = new Map<string, { input: AskInput; release: (text?: string) => void }>();
  const started: string[] = [];
  const listeners = new Set<() => void>();
  const ask = (input: AskInput) =>
    new Promise<TurnResult>((resolve, reject) => {
      started.push(input.text);
      input.signal?.addEventListener("abort", () => reject(input.signal!.reason));
      waiting.set(input.text, { input, release: (text) => resolve(answer(text ?? `re: ${input.text}`)) });
      for (const l of listeners) l();
    });
  return {
    ask,
    started,
    waiting,
    /** Resolves once a turn for `text` has started. */
    startedTurn: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (started.includes(text)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
      }),
  };
}

describe("gateway with a test channel", () => {
  test("FIFO per conversation: a newer message waits for the active turn and is answered after it", async () => {
    const held = heldAsk();
    const { channel, texts } = setup(held.ask);
    channel.push({ chatId: "a", senderId: OWNER, text: "first" });
    channel.push({ chatId: "a", senderId: OWNER, text: "second" });
    await held.startedTurn("first");
    await settle();
    expect(held.started).toEqual(["first"]);
    held.waiting.get("first")!.release();
    await held.startedTurn("second");
    held.waiting.get("second")!.release();
    await channel.waitFor(() => texts("a").length === 2);
    expect(texts("a")).toEqual(["re: first", "re: second"]);
  });

  test("parallel across conversations: a slow turn in one chat does not hold up another", async () => {
    const held = heldAsk();
    const { channel, texts, gateway } = setup(held.ask);
    channel.push({ chatId: "a", senderId: OWNER, text: "slow" });
    channel.push({ chatId: "b", senderId: OWNER, text: "quick" });
    await Promise.all([held.startedTurn("slow"), held.startedTurn("quick")]);
    expect(gateway.active()).toBe(2);
    held.waiting.get("quick")!.release();
    await channel.waitFor(() => texts("b").length === 1);
    expect(texts("a")).toEqual([]);
    held.waiting.get("slow")!.release();
    await channel.waitFor(() => texts("a").length === 1);
  });

  test("100 conversations × 5 messages: every one answered, each conversation in order, never two at once", async () => {
    const running = new Map<string, number>();
    let concurrent = 0;
    let peak = 0;
    let overlap = false;
    const ask = async (input: AskInput): Promise<TurnResult> => {
      const chat = input.key.chat;
      running.set(chat, (running.get(chat) ?? 0) + 1);
      if (running.get(chat)! > 1) overlap = true;
      peak = Math.max(peak, ++concurrent);
      // Different chats take different numbers of event-loop turns, so their answers interleave.
      for (let i = 0; i < (Number(chat) % 7) + 1; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      concurrent--;
      running.set(chat, running.get(chat)! - 1);
      return answer(`${chat}:${input.text}`);
    };
    const { channel, texts } = setup(ask);
    const chats = Array.from({ length: 100 }, (_, i) => String(i));
    for (let m = 0; m < 5; m++)
      for (const chat of chats) channel.push({ chatId: chat, senderId: OWNER, text: `m${m}` });
    await channel.waitFor(() => channel.events.filter((e) => e.kind === "send").length === 500);
    for (const chat of chats) expect(texts(chat)).toEqual([0, 1, 2, 3, 4].map((m) => `${chat}:m${m}`));
    expect(overlap).toBe(false);
    expect(peak).toBeGreaterThan(1);
  });

  test("a stranger is dropped without a reply; an allow-listed guest is answered as a guest", async () => {
    const callers: string[] = [];
    const { channel, texts, logs } = setup(async (input) => {
      callers.push(input.caller.trust);
      return answer("hi");
    });
    channel.push({ chatId: "x", senderId: "999", senderName: "mallory", text: "hello" });
    channel.push({ chatId: "y", senderId: "200", text: "hello" });
    await channel.waitFor(() => texts("y").length === 1);
    expect(texts("x")).toEqual([]);
    expect(callers).toEqual(["guest"]);
    expect(logs.join("\n")).toContain("dropped a message from 999 (mallory)");
  });

  test("a failed turn gets the canned sentence; a provider's own sentence is passed on", async () => {
    const { channel, texts } = setup(async (input) => {
      if (input.text === "crash") throw new Error("internal detail");
      throw new FermixError("provider_rate_limited", "usage limit — try again in ~5 min");
    });
    channel.push({ chatId: "a", senderId: OWNER, text: "crash" });
    channel.push({ chatId: "a", senderId: OWNER, text: "limit" });
    await channel.waitFor(() => texts("a").length === 2);
    expect(texts("a")).toEqual([CANNED.turnFailed, "usage limit — try again in ~5 min"]);
  });

  test("/stop cancels the active turns and the queue, deletes a live draft, and marks the turn", async () => {
    const held = heldAsk();
    const { channel, texts, stopped, gateway } = setup(
      (input) => {
        input.onText?.("A draft long enough to be shown while it streams");
        return held.ask(input);
      },
      { streaming: "draft" },
    );
    channel.push({ chatId: "a", senderId: OWNER, text: "long task" });
    channel.push({ chatId: "a", senderId: OWNER, text: "queued" });
    await held.startedTurn("long task");
    await channel.waitFor(() => texts("a").length === 1);
    channel.push({ chatId: "a", senderId: OWNER, text: "/stop" });
    await channel.waitFor(() => channel.events.some((e) => e.kind === "delete") && texts("a").length === 1);
    expect(texts("a")).toEqual([
      "Stopped Fermix execution — cancelled 1 active turns, cleared 1 queued messages, and stopped 0 background tasks. Scheduled jobs and voice are not affected by /stop.",
    ]);
    expect(held.started).toEqual(["long task"]);
    await gateway.idle();
    expect(stopped).toEqual(["long task"]);
  });

  test("/stop from a guest is refused", async () => {
    const { channel, texts } = setup(async () => answer("x"));
    channel.push({ chatId: "g", senderId: "200", text: "/stop" });
    await channel.waitFor(() => texts("g").length === 1);
    expect(texts("g")).toEqual([CANNED.ownerOnly]);
  });

  test("draft streaming through the gateway edits one message and seals it to the answer", async () => {
    const { channel } = setup(
      async (input) => {
        input.onText?.("Thinking about your question, ");
        input.onText?.("here is a first part of it");
        await settle();
        return answer("The sealed, final answer to your question.");
      },
      { streaming: "draft" },
    );
    channel.push({ chatId: "d", senderId: OWNER, text: "question" });
    await channel.waitFor(() => channel.events.some((e) => e.kind === "edit"));
    expect(channel.events.filter((e) => e.kind !== "typing").map((e) => e.kind)).toEqual(["send", "edit"]);
    expect(channel.all("d").map((m) => m.markdown)).toEqual(["The sealed, final answer to your question."]);
  });

  test("block streaming through the gateway sends each item as its own message", async () => {
    const { channel, texts } = setup(
      async (input) => {
        input.onText?.("I'll look at the calendar.");
        input.onItemEnd?.();
        input.onText?.("\n\nYou are free after 3pm.");
        return answer("You are free after 3pm.");
      },
      { streaming: "block" },
    );
    channel.push({ chatId: "k", senderId: OWNER, text: "am I free?" });
    await channel.waitFor(() => texts("k").length === 2);
    expect(texts("k")).toEqual(["I'll look at the calendar.", "You are free after 3pm."]);
  });
});
