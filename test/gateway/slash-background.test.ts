import { describe, expect, test } from "bun:test";
import { BACKGROUND_LIMIT, createBackgroundTasks } from "../../src/gateway/slash/background-tasks.ts";
import type { BackgroundTask } from "../../src/gateway/slash/background-tasks-contract.ts";
import { handleSlash, type SlashContext } from "../../src/gateway/slash.ts";
import { fakeSlashContext, GUEST, LOCAL_OWNER } from "../fixture/slash-context.ts";

/** Background work whose turns the test finishes by hand; `posted` and `settled` are awaited, never slept on. */
function setup() {
  const base = fakeSlashContext();
  const settledWaiters: Array<(task: BackgroundTask) => void> = [];
  const tasks = createBackgroundTasks({ now: base.clock, onSettled: (task) => settledWaiters.shift()?.(task) });
  const runs: Array<{ text: string; signal: AbortSignal; resolve(text: string): void; reject(err: Error): void }> = [];
  const posts: string[] = [];
  const postWaiters: Array<(text: string) => void> = [];
  const ctx: SlashContext = {
    ...base.ctx,
    background: {
      tasks,
      run: (text, signal) =>
        new Promise<string>((resolve, reject) => {
          runs.push({ text, signal, resolve, reject });
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      post: async (text) => {
        posts.push(text);
        postWaiters.shift()?.(text);
      },
    },
  };
  return {
    ctx,
    tasks,
    runs,
    posts,
    nextPost: () => new Promise<string>((resolve) => postWaiters.push(resolve)),
    nextSettled: () => new Promise<BackgroundTask>((resolve) => settledWaiters.push(resolve)),
    run: async (text: string, over: Partial<SlashContext> = {}) =>
      (await handleSlash(text, { ...ctx, ...over })) as string,
  };
}

const idOf = (ack: string) => /^Started background work (bg_[0-9a-f]{6})\./.exec(ack)![1]!;

describe("/background and /tasks", () => {
  test("/bg starts a detached turn, acknowledges at once, and posts the result to the chat when done", async () => {
    const { run, runs, nextPost } = setup();
    const ack = await run("/bg summarise the release notes");
    expect(ack).toMatch(
      /^Started background work bg_[0-9a-f]{6}\. I'll post the result here when it's done — \/tasks to check, \/stop to cancel\.$/,
    );
    expect(runs.map((r) => r.text)).toEqual(["summarise the release notes"]);
    const id = idOf(ack);
    expect(await run("/tasks")).toBe(`• ${id} [running] /bg: summarise the release notes`);
    const posted = nextPost();
    runs[0]!.resolve("Three fixes and one feature.");
    expect(await posted).toBe(`Background work ${id} done:\nThree fixes and one feature.`);
    expect(await run("/tasks")).toBe(`• ${id} [done] /bg: summarise the release notes`);
  });

  test("a failed run posts why; /tasks is per conversation and previews 80 characters", async () => {
    const { run, runs, nextPost } = setup();
    const long = `check ${"x".repeat(100)}`;
    const id = idOf(await run(`/background ${long}`));
    const posted = nextPost();
    runs[0]!.reject(new Error("no provider answered"));
    expect(await posted).toBe(`Background work ${id} failed: no provider answered`);
    const line = await run("/tasks");
    expect(line).toStartWith(`• ${id} [failed] /background: check xxx`);
    expect(line.length).toBe(`• ${id} [failed] /background: `.length + 80);
    expect(await run("/tasks", { conversation: { channel: "telegram", chat: "elsewhere" } })).toBe(
      "No background work.",
    );
  });

  test(`at most ${BACKGROUND_LIMIT} run at once; /stop's stopAll ends them without posting`, async () => {
    const { run, runs, tasks, posts, nextSettled } = setup();
    for (let i = 0; i < BACKGROUND_LIMIT; i++) expect(await run(`/bg job ${i}`)).toStartWith("Started background work");
    expect(await run("/bg one more")).toBe(
      `Too many background tasks already running (limit ${BACKGROUND_LIMIT}). Wait for one to finish (/tasks shows them) or /stop them.`,
    );
    const settled = Array.from({ length: BACKGROUND_LIMIT }, () => nextSettled());
    expect(tasks.stopAll(new Error("stopped"))).toBe(BACKGROUND_LIMIT);
    expect(tasks.stopAll()).toBe(0);
    expect(runs.every((r) => r.signal.aborted)).toBe(true);
    expect((await Promise.all(settled)).map((t) => t.status)).toEqual(Array(BACKGROUND_LIMIT).fill("stopped"));
    expect(posts).toEqual([]);
    expect(await run("/bg after the stop")).toStartWith("Started background work");
  });

  test("usage, guests, and the CLI (which does not offer background work)", async () => {
    const { run, ctx } = setup();
    expect(await run("/bg")).toBe("Usage: /bg <prompt>");
    expect(await run("/background   ")).toBe("Usage: /background <prompt>");
    expect(await run("/bg hi", { caller: GUEST })).toBe("This command requires owner permissions.");
    expect(await run("/tasks", { caller: GUEST })).toBe("This command requires owner permissions.");
    const cli = { ...ctx, caller: LOCAL_OWNER, surface: "cli" as const, background: undefined };
    expect(await handleSlash("/bg hi", cli)).toStartWith("Background work is for chat channels");
    expect(await handleSlash("/tasks", cli)).toStartWith("Background work is for chat channels");
  });
});
