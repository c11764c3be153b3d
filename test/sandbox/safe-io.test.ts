import { describe, expect, test } from "bun:test";
import { existsSync, linkSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readNoFollow, writeNoFollow } from "../../src/sandbox/safe-io.ts";
import { makeTree } from "./_tree.ts";

// The last line of defence, used after the path guard: what if a link or a FIFO appears at the path
// between the check and the open?
describe("opening without following links", () => {
  test("a link at the final component is refused for reads and writes, and a dangling one creates nothing", async () => {
    using t = makeTree();
    const link = join(t.workspace, "swapped");
    symlinkSync(join(t.outside, "secret.txt"), link);
    expect(await readNoFollow(link, 100)).toMatchObject({ ok: false, code: "symlink" });
    expect(await writeNoFollow(link, "pwned")).toMatchObject({ ok: false, code: "symlink" });
    expect(readFileSync(join(t.outside, "secret.txt"), "utf8")).toBe("outside secret");
    const dangling = join(t.workspace, "dangling");
    symlinkSync(join(t.outside, "new.txt"), dangling);
    expect(await writeNoFollow(dangling, "pwned")).toMatchObject({ ok: false, code: "symlink" });
    expect(existsSync(join(t.outside, "new.txt"))).toBe(false);
  });

  test("a hard-linked file is refused before any byte of it changes", async () => {
    using t = makeTree();
    const twin = join(t.workspace, "twin");
    linkSync(join(t.outside, "secret.txt"), twin);
    expect(await writeNoFollow(twin, "")).toMatchObject({ ok: false, code: "hardlink" });
    expect(readFileSync(join(t.outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  test("a FIFO is refused instead of hanging the read", async () => {
    using t = makeTree();
    const fifo = join(t.workspace, "fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(await readNoFollow(fifo, 100)).toMatchObject({ ok: false, code: "invalid" });
    expect(await writeNoFollow(fifo, "x")).toMatchObject({ ok: false, code: "invalid" });
  });

  test("writes replace the whole content; a huge read cap costs nothing on a small file", async () => {
    using t = makeTree();
    const file = join(t.workspace, "f.txt");
    writeFileSync(file, "a long original content");
    expect(await writeNoFollow(file, "short")).toEqual({ ok: true });
    expect(readFileSync(file, "utf8")).toBe("short");
    const read = await readNoFollow(file, 2 ** 31);
    expect(read.ok && [new TextDecoder().decode(read.bytes), read.truncated]).toEqual(["short", false]);
  });
});
