import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { TurnInput, TurnResult } from "../../src/agent/turn.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { channelAccess } from "../../src/gateway/channel-access.ts";
import { createGateway } from "../../src/gateway/gateway.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { createInboundStore } from "../../src/memory/inbound.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import type { SqlDatabase } from "../../src/runtime/sqlite.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";

const OWNER = "100";
type AskInput = TurnInput & { caller: Caller };

/** A gateway on a test channel with memory.db behind it; `ask` commits like a real turn, or holds. */
function daemonOn(db: SqlDatabase, ask: (input: AskInput) => Promise<TurnResult>) {
  const inbound = createInboundStore(db, Date.now);
  const messages = createMessageStore(db, Date.now);
  const gateway = createGateway({
    ask,
    slash: async () => undefined,
    markStopped: (conversation, text, ids) =>
      messages.commitTurn(conversation, [{ role: "user", content: [{ type: "text", text }] }], {
        turnId: "stopped",
        answers: { ids, as: "stopped" },
      }),
    media: {},
    log: { info: () => {}, warn: () => {} },
    now: Date.now,
    inbound,
  });
  const channel = createTestChannel();
  const access = channelAccess("test", { owner_user_id: OWNER, backlog_max_age_seconds: 60 }, { streaming: "off" });
  if (!access.ok) throw new Error(access.reason);
  const ingest = gateway.attach(channel.adapter, access.access);
  void channel.adapter.start(ingest);
  gateway.resume(channel.adapter);
  const states = () =>
    (
      db.query("SELECT platform_id, state FROM inbound_messages ORDER BY id").all() as {
        platform_id: string;
        state: string;
      }[]
    ).map((r) => `${r.platform_id}:${r.state}`);
  return { gateway, channel, ingest, states, messages };
}

/** A turn that commits its answer (settling the stored message, as agent/turn.ts does) once released. */
function committingAsk(db: SqlDatabase) {
  const messages = createMessageStore(db, Date.now);
  const held = new Map<string, () => void>();
  const started: string[] = [];
  const waiters = new Map<string, () => void>();
  /** Resolves once a turn for `text` has started (its ask was called). */
  const startedTurn = (text: string) =>
    held.has(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(text, resolve));
  const ask = (input: AskInput) =>
    new Promise<TurnResult>((resolve, reject) => {
      started.push(input.text);
      input.signal?.addEventListener("abort", () => reject(input.signal!.reason));
      held.set(input.text, () => {
        messages.commitTurn(
          input.key,
          [{ role: "assistant", content: [{ type: "text", text: `re: ${input.text}` }] }],
          {
            turnId: `t_${input.text}`,
            ...(input.inboundIds?.length ? { answers: { ids: input.inboundIds, as: "answered" as const } } : {}),
          },
        );
        resolve({ response: `re: ${input.text}`, provider: "fake", model: "fake", turnId: "t" });
      });
      waiters.get(input.text)?.();
    });
  return { ask, held, started, startedTurn };
}

async function freshDb() {
  const h = tempHome();
  mkdirSync(h.home, { recursive: true });
  return { h, db: openDatabase(join(h.home, "memory.db")) };
}

describe("the gateway keeps what the owner sends", () => {
  test("stored before ingest resolves; a stranger's never; answered once the turn is recorded", async () => {
    const { h, db } = await freshDb();
    await using _ = h;
    const turns = committingAsk(db);
    const { channel, ingest, states } = daemonOn(db, turns.ask);
    await ingest({ id: "1", channel: "test", chatId: "c", senderId: "999", text: "stranger", attachments: [] });
    await ingest({ id: "2", channel: "test", chatId: "c", senderId: OWNER, text: "hello", attachments: [] });
    expect(states()).toEqual(["2:pending"]);
    await turns.startedTurn("hello");
    turns.held.get("hello")!();
    await channel.waitFor(() => channel.shown("c").length === 1);
    expect(states()).toEqual(["2:answered"]);
  });

  test("a daemon that stops mid-turn leaves the message pending, and the next start answers it; /stop is final", async () => {
    const { h, db } = await freshDb();
    await using _ = h;
    const first = committingAsk(db);
    const before = daemonOn(db, first.ask);
    await before.ingest({
      id: "1",
      channel: "test",
      chatId: "c",
      senderId: OWNER,
      text: "interrupted",
      attachments: [],
    });
    await first.startedTurn("interrupted");
    before.gateway.stopAll(new Error("the daemon is stopping"));
    await before.gateway.idle();
    expect(before.states()).toEqual(["1:pending"]);

    const second = committingAsk(db);
    const after = daemonOn(db, second.ask);
    await second.startedTurn("interrupted");
    second.held.get("interrupted")!();
    await after.ingest({ id: "2", channel: "test", chatId: "c", senderId: OWNER, text: "stop me", attachments: [] });
    await second.startedTurn("stop me");
    // The owner stops it: settled as stopped (with the history marker), never run again.
    await after.ingest({ id: "3", channel: "test", chatId: "c", senderId: OWNER, text: "/stop", attachments: [] });
    await after.gateway.idle();
    await after.channel.waitFor(() => after.channel.shown("c").length === 2);
    expect(after.states()).toEqual(["1:answered", "2:stopped", "3:answered"]);

    const third = committingAsk(db);
    const again = daemonOn(db, third.ask);
    await again.gateway.idle();
    expect(third.started).toEqual([]);
  });

  test("a message sent before the backlog window gets the arrived-while-down reply, no turn", async () => {
    const { h, db } = await freshDb();
    await using _ = h;
    const turns = committingAsk(db);
    const { channel, ingest, states } = daemonOn(db, turns.ask);
    const sentAt = Date.now() - 3_600_000;
    await ingest({ id: "7", channel: "test", chatId: "c", senderId: OWNER, text: "old", attachments: [], sentAt });
    await channel.waitFor(() => channel.shown("c").length === 1);
    expect(channel.shown("c")[0]!.markdown).toContain("while fermix was not running");
    expect(turns.started).toEqual([]);
    expect(states()).toEqual(["7:late"]);
  });
});
