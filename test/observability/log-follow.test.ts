import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, openSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { followFile } from "../../src/observability/log-follow.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

function dir(): string {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true });
  return h.home;
}

/** A follower in this process, and a way to wait until it has handed out a given line. */
function follow(opts: { locate: () => string | undefined; start?: { path: string; offset: number } }) {
  const controller = new AbortController();
  const seen: string[] = [];
  let wake = () => {};
  const done = followFile({
    locate: opts.locate,
    start: opts.start && { ...opts.start, fd: openSync(opts.start.path, "r") },
    signal: controller.signal,
    pollMs: 10,
    onLines: (lines) => {
      seen.push(...lines);
      wake();
    },
  });
  defer(async () => {
    controller.abort();
    await done;
  });
  return {
    seen,
    async until(line: string) {
      // The test's timeout is the safety net; each wake-up is a batch of lines handed out.
      while (!seen.includes(line)) await new Promise<void>((resolve) => (wake = resolve));
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

describe("followFile", () => {
  test("goes on from the given offset, and reads the old file to its end across a rename", async () => {
    const file = join(dir(), "fermix.log");
    writeFileSync(file, "old 1\n");
    const f = follow({ locate: () => file, start: { path: file, offset: 6 } });
    appendFileSync(file, "old 2\n");
    await f.until("old 2");
    // log.ts's rotation with no poll in between: a last line for the old file, the rename, the new file.
    appendFileSync(file, "old 3\n");
    renameSync(file, `${file}.1`);
    appendFileSync(file, "new 1\n");
    await f.until("new 1");
    appendFileSync(file, "new 2\n");
    await f.until("new 2");
    await f.stop();
    expect(f.seen).toEqual(["old 2", "old 3", "new 1", "new 2"]);
  });

  test("waits for a file that does not exist yet, then reads it from its start; a partial line waits for its end", async () => {
    const file = join(dir(), "later.log");
    const f = follow({ locate: () => file });
    writeFileSync(file, "first\nsecond, half");
    await f.until("first");
    appendFileSync(file, " and whole\n");
    await f.until("second, half and whole");
    await f.stop();
    expect(f.seen).toEqual(["first", "second, half and whole"]);
  });

  test("moves on to the file `locate` names next (a new day's traces)", async () => {
    const root = dir();
    const day1 = join(root, "2025-01-01.jsonl");
    const day2 = join(root, "2025-01-02.jsonl");
    writeFileSync(day1, "");
    let current = day1;
    const f = follow({ locate: () => current, start: { path: day1, offset: 0 } });
    appendFileSync(day1, "a\n");
    await f.until("a");
    appendFileSync(day1, "b\n");
    writeFileSync(day2, "c\n");
    current = day2;
    await f.until("c");
    await f.stop();
    expect(f.seen).toEqual(["a", "b", "c"]);
  });

  test("a file truncated in place is read again from its start", async () => {
    const file = join(dir(), "t.log");
    writeFileSync(file, "one\ntwo\n");
    const f = follow({ locate: () => file, start: { path: file, offset: 8 } });
    writeFileSync(file, "x\n");
    await f.until("x");
    await f.stop();
    expect(f.seen).toEqual(["x"]);
  });
});
