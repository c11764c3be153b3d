import { describe, expect, test } from "bun:test";
import { createConversationQueue } from "../../src/gateway/conversation-queue.ts";

const a = { channel: "test", chat: "a" };
const b = { channel: "test", chat: "b" };

/** Work that starts, says so, and ends only when released (or when its signal aborts). */
function held(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const start = new Promise<void>((resolve) => {
    started = resolve;
  });
  const run = async (signal: AbortSignal) => {
    log.push(`${name}:start`);
    started();
    await Promise.race([done, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
    log.push(signal.aborted ? `${name}:aborted` : `${name}:end`);
  };
  return { run, release, started: start };
}

describe("conversation queue", () => {
  test("one conversation runs its turns in arrival order, one at a time", async () => {
    const queue = createConversationQueue();
    const log: string[] = [];
    const first = held(log, "a1");
    const second = held(log, "a2");
    queue.enqueue(a, first.run);
    queue.enqueue(a, second.run);
    await first.started;
    expect(log).toEqual(["a1:start"]);
    expect(queue.active()).toBe(1);
    first.release();
    await second.started;
    second.release();
    await queue.idle();
    expect(log).toEqual(["a1:start", "a1:end", "a2:start", "a2:end"]);
  });

  test("different conversations run in parallel; a newer message never cancels the active turn", async () => {
    const queue = createConversationQueue();
    const log: string[] = [];
    const slow = held(log, "a1");
    const other = held(log, "b1");
    queue.enqueue(a, slow.run);
    queue.enqueue(b, other.run);
    await Promise.all([slow.started, other.started]);
    expect(queue.active()).toBe(2);
    const next = held(log, "a2");
    queue.enqueue(a, next.run);
    other.release();
    slow.release();
    await next.started;
    next.release();
    await queue.idle();
    expect(log.filter((l) => l.startsWith("a"))).toEqual(["a1:start", "a1:end", "a2:start", "a2:end"]);
    expect(log).not.toContain("a1:aborted");
  });

  test("a failing turn does not stop the ones queued behind it", async () => {
    const queue = createConversationQueue();
    const ran: string[] = [];
    queue.enqueue(a, async () => {
      throw new Error("boom");
    });
    queue.enqueue(a, async () => {
      ran.push("next");
    });
    await queue.idle();
    expect(ran).toEqual(["next"]);
  });

  test("stopAll aborts every active turn and drops every queued message, and says how many", async () => {
    const queue = createConversationQueue();
    const log: string[] = [];
    const a1 = held(log, "a1");
    const b1 = held(log, "b1");
    queue.enqueue(a, a1.run);
    queue.enqueue(a, held(log, "a2").run);
    queue.enqueue(a, held(log, "a3").run);
    queue.enqueue(b, b1.run);
    await Promise.all([a1.started, b1.started]);
    expect(queue.stopAll(new Error("stop"))).toEqual({ turns: 2, queued: 2 });
    await queue.idle();
    expect(log.sort()).toEqual(["a1:aborted", "a1:start", "b1:aborted", "b1:start"]);
    expect(queue.stopAll(new Error("again"))).toEqual({ turns: 0, queued: 0 });
  });
});
