import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseRevisionId, renderRevisions } from "../../src/cli/memory.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-memory-0123456789abcdef";
const defer = cleanupAfterEach();

const MAIN = join(import.meta.dir, "../../src/main.ts");

/** `fermix memory …` from source: the review needs no build, and the fake model is on loopback. */
async function fermixMemory(args: string[], env: Record<string, string>) {
  return runCommand([process.execPath, MAIN, "memory", ...args], { env: { PATH: "/usr/bin:/bin", ...env } });
}

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, env };
}

describe("fermix memory", () => {
  test("review --now asks the configured model, rebuilds USER.md, and restore brings the old file back", async () => {
    const { h, fake, env } = await setup();
    const db = openDatabase(join(h.home, "memory.db"));
    const memory = createMemoryStore(db);
    memory.store({ scope: "owner", category: "identity", key: "name", value: "Ada", source: "test" });
    memory.store({ scope: "owner", category: "preference", key: "coffee", value: "likes coffee", source: "test" });
    db.close();
    fake.enqueue({
      kind: "text",
      text: '```json\n{"replace": [{"key": "coffee", "value": "black coffee", "category": "preference"}], "retire": []}\n```',
    });

    const reviewed = await fermixMemory(["review", "--now"], env);
    expect(reviewed.stderr).toBe("");
    expect(reviewed.code).toBe(0);
    expect(reviewed.stdout).toContain("memory review: 2 facts reviewed; 1 replaced (coffee), 0 retired");
    expect(reviewed.stdout).toMatch(/wrote memory\/main\/USER\.md \(revision 1, rev_\d+\)/);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain("- coffee: likes coffee");
    // The review's call is in the usage ledger, as the daemon's review would be.
    const ledger = openDatabase(join(h.home, "memory.db"));
    expect(ledger.query("SELECT kind, session_id, channel, provider FROM usage_ledger").all()).toEqual([
      { kind: "memory_review", session_id: "memory-review", channel: "fermix", provider: "openai" },
    ]);
    ledger.close();
    const userMd = join(h.home, "memory", "main", "USER.md");
    expect(readFileSync(userMd, "utf8")).toContain("- coffee: black coffee");
    expect(existsSync(join(h.home, "memory", "main", "MEMORY.md"))).toBe(true);

    // Not due again for a day.
    const again = await fermixMemory(["review"], env);
    expect(again.stdout).toContain("memory review skipped: the last review was less than 24 hours ago");
    expect(fake.requests).toHaveLength(1);

    const listed = await fermixMemory(["revisions"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID {8}FILE/);
    expect(listed.stdout).toContain("memory/main/USER.md");

    const hand = "# About the owner\n\nwritten by hand\n";
    await Bun.write(userMd, hand);
    // Rebuild with a new fact so USER.md is written again; the hand edit is kept as a revision first.
    const db2 = openDatabase(join(h.home, "memory.db"));
    createMemoryStore(db2).store({ scope: "owner", category: "goal", key: "run", value: "a marathon", source: "t" });
    db2.close();
    fake.enqueue({ kind: "text", text: "{}" });
    expect((await fermixMemory(["review", "--now"], env)).code).toBe(0);
    expect(readFileSync(userMd, "utf8")).toContain("a marathon");
    const kept = (await fermixMemory(["revisions", "memory/main/USER.md"], env)).stdout
      .split("\n")
      .find((line) => line.includes("kept: the file as it was"))!;
    const id = kept.split(" ")[0]!;
    const restored = await fermixMemory(["restore", id], env);
    expect(restored.stderr).toBe("");
    expect(restored.stdout).toMatch(/^restored memory\/main\/USER\.md from revision 2 \(now revision 4, rev_\d+\)\n$/);
    expect(readFileSync(userMd, "utf8")).toBe(hand);
  });

  test("a failed review exits 1 with the reason; usage errors exit 2", async () => {
    const { h, fake, env } = await setup();
    const db = openDatabase(join(h.home, "memory.db"));
    createMemoryStore(db).store({ scope: "owner", category: "identity", key: "name", value: "Ada", source: "t" });
    db.close();
    fake.enqueue({ kind: "text", text: "all good, nothing to change" });
    const failed = await fermixMemory(["review", "--now"], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      "fermix: memory review: the review model's answer was not usable, so nothing changed",
    );

    for (const args of [["restore", "abc"], ["restore"], ["forget"], ["review", "extra"], ["revisions", "a", "b"]]) {
      const r = await fermixMemory(args, env);
      expect(r.code).toBe(2);
    }
    const missing = await fermixMemory(["restore", "rev_999"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no revision 999");
  });

  test("revision ids are rev_<n> or the bare number", () => {
    expect(parseRevisionId("rev_12")).toBe(12);
    expect(parseRevisionId("12")).toBe(12);
    expect(() => parseRevisionId("rev_0")).toThrow(/not a revision id/);
    expect(renderRevisions([])).toBe("no revisions recorded yet (the first memory review records them)\n");
  });
});
