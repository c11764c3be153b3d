import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { readSeedRecord, seedPromptFiles, seedRecordFile, shippedTemplate } from "../../src/agent/prompt-files.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { templatesCheck } from "../../src/doctor/templates-check.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const paths = fermixPaths(h.home);
  const ctx = { paths, display: (p: string) => p.replace(h.home, "~/.fermix") } as any;
  return { h, paths, run: () => templatesCheck.run(ctx) };
}

describe("doctor: bootstrap templates", () => {
  test("seeding records the variable-free templates; a fresh install matches them", async () => {
    const { paths, run } = setup();
    seedPromptFiles(paths, "fermix", () => Date.parse("2026-11-29T00:00:00Z"));
    expect(Object.keys(readSeedRecord(paths)!).sort()).toEqual(["FERMIX.md", "SOUL.md"]);
    expect(await run()).toEqual([
      { id: "templates", title: "templates", status: "ok", detail: "FERMIX.md, SOUL.md match the shipped templates" },
    ]);
  });

  test("a template that moved on since seeding warns with the way to compare; the owner's edits are not judged", async () => {
    const { paths, run } = setup();
    seedPromptFiles(paths, "fermix");
    // The owner edits their copy: not drift.
    writeFileSync(paths.promptFiles.soul, "my own soul\n");
    expect((await run())[0]!.status).toBe("ok");
    // This install was seeded from an older FERMIX.md than the one this build ships.
    const record = readSeedRecord(paths)!;
    record["FERMIX.md"]!.sha256 = "0".repeat(64);
    writeFileSync(seedRecordFile(paths), JSON.stringify(record));
    expect(await run()).toEqual([
      {
        id: "templates",
        title: "templates",
        status: "warn",
        detail:
          "the shipped FERMIX.md changed since this install was seeded; your copies in ~/.fermix/bootstrap/main are kept as they are",
        fix: "compare: fermix doctor --template FERMIX.md | diff ~/.fermix/bootstrap/main/FERMIX.md - (take what you like; nothing is overwritten)",
      },
    ]);
    expect(shippedTemplate("FERMIX.md")).toBeString();
    expect(shippedTemplate("IDENTITY.md")).toBeUndefined();
  });

  test("an install seeded before the record existed says so", async () => {
    const { run } = setup();
    expect((await run())[0]).toMatchObject({ status: "ok", detail: expect.stringContaining("no seed record") });
  });
});
