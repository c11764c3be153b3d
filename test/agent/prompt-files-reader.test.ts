import { describe, expect, test } from "bun:test";
import { renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { readPromptFiles, seedPromptFiles } from "../../src/agent/prompt-files.ts";
import { createPromptFilesReader } from "../../src/agent/prompt-files-reader.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { tempHome } from "../fixture/home.ts";

// Past every racy window: a reader that trusts what it has seen whenever the stat still matches.
const LATER = () => Date.now() + 60_000;

describe("the daemon's prompt files reader", () => {
  test("reads what readPromptFiles reads", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "Ada");
    writeFileSync(paths.promptFiles.user, "  - prefers metric units\n");
    rmSync(paths.promptFiles.memory);
    const read = createPromptFilesReader(paths, { now: LATER });
    expect(read()).toEqual(readPromptFiles(paths));
    expect(read()).toEqual(readPromptFiles(paths));
  });

  test("a settled file edited in place to the same size is read again once its times move", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "Ada");
    const soul = paths.promptFiles.soul;
    writeFileSync(soul, "Be kind.");
    const read = createPromptFilesReader(paths, { now: LATER });
    expect(read().soul).toBe("Be kind.");
    writeFileSync(soul, "Be calm.");
    const { atime, mtime } = statSync(soul);
    utimesSync(soul, atime, new Date(mtime.getTime() + 5_000));
    expect(read().soul).toBe("Be calm.");
  });

  test("a file replaced by a rename, removed or created is read again", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "Ada");
    const user = paths.promptFiles.user;
    const read = createPromptFilesReader(paths, { now: LATER });
    read();
    writeFileSync(`${user}.new`, "Lives in Lyon.");
    renameSync(`${user}.new`, user);
    expect(read().user).toBe("Lives in Lyon.");
    rmSync(user);
    expect(read().user).toBe("");
    writeFileSync(user, "Lives in Oslo.");
    expect(read().user).toBe("Lives in Oslo.");
  });

  test("a file whose stat has not moved is served as read while settled, and read again while racily new", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "Ada");
    const soul = paths.promptFiles.soul;
    writeFileSync(soul, "Be kind.");
    // A stat that never moves, as a same-size write within one tick of the filesystem's clock leaves it.
    let changedAt = 0;
    const frozen = () => ({ signature: "frozen", changedAt });
    const settled = createPromptFilesReader(paths, { now: () => 10_000, stamp: frozen });
    expect(settled().soul).toBe("Be kind.");
    writeFileSync(soul, "Be calm.");
    expect(settled().soul).toBe("Be kind.");
    // Changed 50 ms before the read (a stamp with milliseconds: a fine-grained filesystem): nothing is remembered.
    changedAt = 9_950.5;
    const racy = createPromptFilesReader(paths, { now: () => 10_000, stamp: frozen });
    expect(racy().soul).toBe("Be calm.");
    writeFileSync(soul, "Be wary.");
    expect(racy().soul).toBe("Be wary.");
    // A stamp in whole seconds (FAT, ext3, HFS+): racy for seconds.
    changedAt = 8_000;
    writeFileSync(soul, "Be bold.");
    expect(racy().soul).toBe("Be bold.");
    writeFileSync(soul, "Be glad.");
    expect(racy().soul).toBe("Be glad.");
  });
});
