import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/memory/db.ts";
import { createInboundStore } from "../../src/memory/inbound.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { tempHome } from "../fixture/home.ts";

function open(home: string) {
  mkdirSync(home, { recursive: true });
  return openDatabase(join(home, "memory.db"));
}

const message = (platformId: string, text = `text of ${platformId}`) => ({
  channel: "telegram",
  chat: "1001",
  platformId,
  sender: "1001",
  text,
  raw: { update_id: Number(platformId) },
  sentAt: 1_700_000_000_000,
});

describe("durable inbound messages in memory.db", () => {
  test("a message is stored once; a redelivery is told apart; pending ones come back in order with their payload", async () => {
    await using h = tempHome();
    let now = 5_000;
    const store = createInboundStore(open(h.home), () => now);
    const a = store.store(message("1"));
    now += 1;
    const b = store.store(message("2"));
    expect(a).toBeNumber();
    expect(store.store(message("1", "the same delivery again"))).toBeUndefined();
    expect(store.pending("telegram")).toEqual([
      { id: a!, ...message("1"), arrivedAt: 5_000 },
      { id: b!, ...message("2"), arrivedAt: 5_001 },
    ]);
    expect(store.pending("slack")).toEqual([]);
  });

  test("settled is final: answered, stopped or late leave the pending list and never change again", async () => {
    await using h = tempHome();
    const db = open(h.home);
    const store = createInboundStore(db, () => 1);
    const ids = ["1", "2", "3"].map((id) => store.store(message(id))!);
    store.settle([ids[0]!], "stopped");
    store.settle([ids[1]!], "late");
    store.settle([ids[0]!, ids[1]!], "answered");
    expect(store.pending("telegram").map((m) => m.id)).toEqual([ids[2]!]);
    const states = db.query("SELECT state FROM inbound_messages ORDER BY id").all() as { state: string }[];
    expect(states.map((s) => s.state)).toEqual(["stopped", "late", "pending"]);
  });

  test("a turn's commit settles the messages it answers in the same transaction", async () => {
    await using h = tempHome();
    const db = open(h.home);
    const inbound = createInboundStore(db, () => 1);
    const id = inbound.store(message("9"))!;
    createMessageStore(db, () => 1).commitTurn(
      { channel: "telegram", chat: "1001" },
      [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "text", text: "a" }] },
      ],
      { turnId: "turn_1", answers: { ids: [id], as: "answered" } },
    );
    expect(inbound.pending("telegram")).toEqual([]);
  });

  test("a channel's read position survives a reopen", async () => {
    await using h = tempHome();
    createInboundStore(open(h.home), () => 1).saveCursor("telegram", "100042");
    const again = createInboundStore(open(h.home), () => 2);
    expect(again.cursor("telegram")).toBe("100042");
    expect(again.cursor("slack")).toBeUndefined();
    again.saveCursor("telegram", "100050");
    expect(again.cursor("telegram")).toBe("100050");
  });
});
