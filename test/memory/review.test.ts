import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../src/memory/db.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import type { Category } from "../../src/memory/memories-contract.ts";
import { createResources, RevisionNotFound } from "../../src/memory/resources.ts";
import { createReview, parseAnswer, RETRY_AFTER_MS, REVIEW_INTERVAL_MS } from "../../src/memory/review.ts";
import { conversationScope } from "../../src/memory/scopes.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const DAY = REVIEW_INTERVAL_MS;

/** A review over an in-memory db and a temp FERMIX_HOME, its model scripted answer by answer. */
function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const dir = join(h.home, "memory", "main");
  mkdirSync(dir, { recursive: true });
  const paths = { userMd: join(dir, "USER.md"), memoryMd: join(dir, "MEMORY.md") };
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  let t = Date.UTC(2025, 2, 1, 12);
  const now = () => t;
  const answers: Array<string | Error> = [];
  const calls: { system: string; prompt: string }[] = [];
  const complete = async (system: string, prompt: string) => {
    calls.push({ system, prompt });
    const next = answers.shift();
    if (next === undefined) throw new Error("no scripted answer left");
    if (next instanceof Error) throw next;
    return next;
  };
  const memory = createMemoryStore(db, now);
  const review = createReview({ db, now, complete, paths });
  const fact = (key: string, value: string, category: Category = "preference", scope = "owner") =>
    memory.store({ scope, category, key, value, source: "test" });
  const read = (file: string) => readFileSync(file, "utf8");
  return { db, memory, review, paths, answers, calls, fact, read, advance: (ms: number) => (t += ms) };
}

const answer = (replace: unknown[] = [], retire: string[] = []) => JSON.stringify({ replace, retire });

describe("the memory review", () => {
  test("consolidates facts with one model call and rebuilds USER.md and MEMORY.md from what is live", async () => {
    const s = setup();
    s.fact("name", "Ada", "identity");
    s.fact("coffee", "likes coffee");
    s.fact("coffee_strength", "strong coffee, no sugar");
    s.fact("project", "migrating the billing service", "context");
    s.fact("q1_offsite", "offsite in Lisbon in January", "context");
    s.fact("tone", "answer tersely", "directive");
    s.fact("nickname", "Mallory", "identity", conversationScope({ channel: "telegram", chat: "42" }));
    s.answers.push(
      answer(
        [{ key: "coffee", value: "strong coffee, no sugar", category: "preference" }],
        ["coffee_strength", "q1_offsite"],
      ),
    );
    const report = await s.review.runNow();
    expect(report).toMatchObject({
      status: "done",
      facts: 6,
      replaced: ["coffee"],
      retired: ["coffee_strength", "q1_offsite"],
    });

    // The model saw the owner's live facts by category, with dates, and not a guest's.
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]!.system).toContain('{"replace"');
    expect(s.calls[0]!.prompt).toContain("Today is 2025-03-01.");
    expect(s.calls[0]!.prompt).toContain("## identity\n- name: Ada (updated 2025-03-01)");
    expect(s.calls[0]!.prompt).not.toContain("Mallory");

    expect(s.memory.liveFacts("owner").map((f) => `${f.key}=${f.value}`)).toEqual([
      "project=migrating the billing service",
      "tone=answer tersely",
      "name=Ada",
      "coffee=strong coffee, no sugar",
    ]);
    expect(s.read(s.paths.userMd)).toBe(
      "# About the owner\n\n<!-- Rebuilt from stored facts by the memory review; earlier versions: `fermix memory revisions`. -->\n\n## Identity\n- name: Ada\n\n## Preferences\n- coffee: strong coffee, no sugar\n",
    );
    expect(s.read(s.paths.memoryMd)).toContain(
      "## Context\n- project: migrating the billing service\n\n## Directives\n- tone: answer tersely\n",
    );
    expect(s.read(s.paths.memoryMd)).not.toContain("Lisbon");
    if (report.status !== "done") return;
    expect(report.files.map((f) => [f.name, f.revision])).toEqual([
      ["memory/main/USER.md", 1],
      ["memory/main/MEMORY.md", 1],
    ]);
  });

  test("what the file held before (the seeded template, a hand edit) is kept as a revision", async () => {
    const s = setup();
    writeFileSync(s.paths.userMd, "# About the owner\n\nNothing recorded yet.\n");
    s.fact("name", "Ada", "identity");
    s.answers.push(answer());
    await s.review.runNow();
    const revisions = s.review.listRevisions("memory/main/USER.md");
    expect(revisions.map((r) => [r.revision, r.reason, r.current])).toEqual([
      [2, "memory review", true],
      [1, "kept: the file as it was before this write", false],
    ]);
    expect(s.review.restore(revisions[1]!.id)).toMatchObject({ revision: 3, reason: "restored revision 1" });
    expect(s.read(s.paths.userMd)).toBe("# About the owner\n\nNothing recorded yet.\n");
  });

  test("runs only when 24 hours have passed since the last review", async () => {
    const s = setup();
    s.fact("name", "Ada", "identity");
    s.answers.push(answer(), answer());
    expect(await s.review.maybeRun()).toMatchObject({ status: "done" });
    s.advance(DAY - 1);
    const skipped = await s.review.maybeRun();
    expect(skipped).toMatchObject({ status: "skipped", nextAt: expect.any(Number) });
    expect(s.calls).toHaveLength(1);
    s.advance(1);
    expect(await s.review.maybeRun()).toMatchObject({ status: "done" });
    expect(s.calls).toHaveLength(2);
  });

  test("the gate lives in memory.db, so a second review over the same db (another process) waits too", async () => {
    const s = setup();
    s.fact("name", "Ada", "identity");
    s.answers.push(answer());
    await s.review.maybeRun();
    const other = createReview({
      db: s.db,
      now: () => Date.UTC(2025, 2, 1, 18),
      complete: () => Promise.reject(new Error("must not be called")),
      paths: s.paths,
    });
    expect(await other.maybeRun()).toMatchObject({ status: "skipped" });
  });

  test("two calls at once make one model call", async () => {
    const s = setup();
    s.fact("name", "Ada", "identity");
    s.answers.push(answer());
    const [a, b] = await Promise.all([s.review.maybeRun(), s.review.maybeRun()]);
    expect([a.status, b.status].sort()).toEqual(["done", "skipped"]);
    expect(s.calls).toHaveLength(1);
  });

  test("with no owner facts nothing is asked and no file is touched", async () => {
    const s = setup();
    writeFileSync(s.paths.userMd, "hand written\n");
    expect(await s.review.runNow()).toMatchObject({ status: "skipped", reason: expect.stringContaining("no facts") });
    expect(s.calls).toHaveLength(0);
    expect(s.read(s.paths.userMd)).toBe("hand written\n");
    expect(existsSync(s.paths.memoryMd)).toBe(false);
  });

  for (const [what, bad] of [
    ["prose", "I think everything looks fine!"],
    ["broken JSON", '{"replace": [ {"key": "x"'],
    ["an unknown category", answer([{ key: "x", value: "y", category: "gossip" }])],
    ["a missing value", answer([{ key: "x", category: "goal" }])],
    ["retire as a string", JSON.stringify({ replace: [], retire: "coffee" })],
  ] as const) {
    test(`an answer with ${what} changes nothing, is reported, and is retried in an hour`, async () => {
      const s = setup();
      s.fact("coffee", "likes coffee");
      s.answers.push(bad);
      const report = await s.review.runNow();
      expect(report).toMatchObject({ status: "failed", error: expect.stringContaining("nothing changed") });
      expect(s.memory.liveFacts("owner").map((f) => f.value)).toEqual(["likes coffee"]);
      expect(existsSync(s.paths.userMd)).toBe(false);
      expect(s.review.listRevisions()).toEqual([]);
      s.advance(RETRY_AFTER_MS - 1);
      expect(await s.review.maybeRun()).toMatchObject({ status: "skipped" });
      s.advance(1);
      s.answers.push(answer());
      expect(await s.review.maybeRun()).toMatchObject({ status: "done" });
    });
  }

  test("a failing model call is reported, not thrown", async () => {
    const s = setup();
    s.fact("coffee", "likes coffee");
    s.answers.push(new Error("openai: 503 overloaded"));
    expect(await s.review.runNow()).toMatchObject({
      status: "failed",
      error: expect.stringContaining("503 overloaded"),
    });
  });

  test("a profile whose facts did not change is not rewritten, so a restored revision stays", async () => {
    const s = setup();
    s.fact("name", "Ada", "identity");
    s.answers.push(answer(), answer(), answer());
    await s.review.runNow();
    const first = s.read(s.paths.userMd);
    s.fact("editor", "helix");
    const second = await s.review.runNow();
    expect(second.status === "done" && second.files.map((f) => f.name)).toEqual(["memory/main/USER.md"]);
    expect(s.read(s.paths.userMd)).toContain("editor: helix");

    const original = s.review.listRevisions("memory/main/USER.md").find((r) => r.revision === 1)!;
    s.review.restore(original.id);
    expect(s.read(s.paths.userMd)).toBe(first);
    const third = await s.review.runNow();
    expect(third.status === "done" && third.files).toEqual([]);
    expect(s.read(s.paths.userMd)).toBe(first);
    expect(s.review.listRevisions("memory/main/USER.md").map((r) => [r.revision, r.reason])).toEqual([
      [3, "restored revision 1"],
      [2, "memory review"],
      [1, "memory review"],
    ]);
  });

  test("restoring an unknown revision is an error that names it", () => {
    const s = setup();
    expect(() => s.review.restore(999)).toThrow(/no revision 999/);
    try {
      s.review.restore(999);
    } catch (err) {
      expect(RevisionNotFound.is(err)).toBe(true);
    }
  });

  test("a revision of a file the review does not manage is not restored through it", () => {
    const s = setup();
    const soul = createResources(s.db).write("bootstrap/main/SOUL.md", join(s.paths.userMd, "..", "SOUL.md"), "x", "t");
    expect(() => s.review.restore(soul.id)).toThrow(/does not manage/);
    expect(existsSync(s.paths.userMd)).toBe(false);
  });

  test("a replaced fact keeps its history; retiring an unknown key is ignored", async () => {
    const s = setup();
    s.fact("city", "Berlin", "identity");
    s.answers.push(
      answer([{ key: "city", value: "Lisbon (moved in 2025)", category: "identity" }], ["no_such_key", "city"]),
    );
    const report = await s.review.runNow();
    expect(report).toMatchObject({ status: "done", replaced: ["city"], retired: [] });
    const rows = s.db.query("SELECT value, superseded_by IS NULL AS live FROM memories ORDER BY id").all();
    expect(rows).toEqual([
      { value: "Berlin", live: 0 },
      { value: "Lisbon (moved in 2025)", live: 1 },
    ]);
  });
});

describe("reading the model's answer", () => {
  test("JSON inside a code fence or prose is found; empty lists may be left out", () => {
    expect(parseAnswer('Here you go:\n```json\n{"retire": ["a"]}\n```')).toEqual({
      ok: true,
      value: { replace: [], retire: ["a"] },
    });
    expect(parseAnswer("{}")).toEqual({ ok: true, value: { replace: [], retire: [] } });
    expect(parseAnswer('{"replace": [{"key": "k", "value": "v", "category": "mood"}]}')).toMatchObject({
      ok: false,
      error: expect.stringContaining("replace.0.category"),
    });
  });
});
