import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/memory/db.ts";
import { createMemoryStore } from "../../src/memory/memories.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { conversationScope } from "../../src/memory/scopes.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import type { FakeLlm } from "../fake/types.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";

const KEY = "sk-test-sessions-0123456789abcdef";
const defer = cleanupAfterEach();

type Env = Record<string, string>;

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  const env: Env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, env };
}

const sessions = (args: string[], env: Env, stdin?: string) => runFermix(["sessions", ...args], { env, stdin });
const json = async (args: string[], env: Env) => {
  const r = await sessions([...args, "--json"], env);
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
};

/**
 * Three asks: a fresh one (its own session), then two in the session `work`, the first of which calls
 * memory_recall before it answers. Returns the fresh session's id.
 */
async function askAFew(fake: FakeLlm, env: Env): Promise<string> {
  fake.enqueue({ kind: "text", text: "A monad is a burrito." });
  const first = await runFermix(["ask", "--json", "what is a monad?"], { env });
  expect(first.code).toBe(0);
  fake.enqueue(
    { kind: "tool_calls", calls: [{ name: "memory_recall", arguments: { query: "report" } }] },
    { kind: "text", text: "Start with the zebra numbers." },
  );
  expect((await runFermix(["ask", "-s", "work", "plan the quarterly report"], { env })).code).toBe(0);
  fake.enqueue({ kind: "text", text: "Then the summary." });
  expect((await runFermix(["ask", "-s", "work", "and then?"], { env })).code).toBe(0);
  return JSON.parse(first.stdout).session_id;
}

/** A Telegram chat written the way the gateway writes one, with a summary and a fact kept for it alone. */
function seedTelegram(h: TempHome) {
  const db = openDatabase(join(h.home, "memory.db"));
  const key = { channel: "telegram", chat: "12345" };
  const store = createMessageStore(db, () => Date.parse("2026-01-02T03:04:05Z"));
  store.commitTurn(
    key,
    [
      { role: "user", content: [{ type: "text", text: "remind me about the dentist" }] },
      { role: "assistant", content: [{ type: "text", text: "Noted, the dentist on Friday." }] },
    ],
    { turnId: "turn_t1" },
  );
  store.saveSummary(key, 1, "talked about the dentist");
  createMemoryStore(db).store({
    scope: conversationScope(key),
    category: "context",
    key: "dentist",
    value: "Friday",
    source: "test",
  });
  db.close();
}

function count(h: TempHome, sql: string): number {
  const db = openSqlite(join(h.home, "memory.db"), { readonly: true });
  try {
    return (db.query(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Everything the brief asks of list, show, export, search and rm, run the same with and without a daemon. */
async function exercise(h: TempHome, fake: FakeLlm, env: Env) {
  const fresh = await askAFew(fake, env);

  const listed = await json(["list"], env);
  expect(listed).toMatchObject({ schema_version: 1, ok: true });
  const ids = listed.result.sessions.map((s: { id: string }) => s.id);
  expect(ids).toEqual(["work", fresh, "telegram:12345"]);
  const [work, first, telegram] = listed.result.sessions;
  expect(work).toEqual({
    id: "work",
    title: "plan the quarterly report",
    channel: "cli",
    chat: "work",
    // user, assistant (the tool call), tool, assistant; then user, assistant.
    messages: 6,
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  expect(first).toMatchObject({ id: fresh, title: "what is a monad?", messages: 2 });
  expect(telegram).toMatchObject({ id: "telegram:12345", channel: "telegram", chat: "12345", messages: 2 });
  expect((await json(["list", "--channel", "telegram"], env)).result.sessions).toHaveLength(1);
  expect((await json(["list", "--limit", "1"], env)).result.sessions.map((s: { id: string }) => s.id)).toEqual([
    "work",
  ]);

  const text = await sessions(["list"], env);
  expect(text.code).toBe(0);
  expect(text.stdout.split("\n")[0]).toMatch(
    /^work\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\tcli\t6\tplan the quarterly report$/,
  );
  // The group's default subcommand is list.
  expect((await runFermix(["sessions"], { env })).stdout).toBe(text.stdout);

  const shown = await sessions(["show", "work"], env);
  expect(shown.stderr).toBe("");
  expect(shown.stdout).toMatch(/^plan the quarterly report\nwork · cli · 6 messages · /);
  expect(shown.stdout).toMatch(/\nYou · [^\n]+\nplan the quarterly report\n/);
  expect(shown.stdout).toMatch(
    /\nfermix · [^\n]+\n\[tool\] memory_recall \{"query":"report"\} → \d+ characters\nStart with the zebra numbers\.\n/,
  );
  expect(shown.stdout).toMatch(/\nYou · [^\n]+\nand then\?\n\nfermix · [^\n]+\nThen the summary\.\n$/);

  const md = await sessions(["export", "work", "--format", "md"], env);
  expect(md.code).toBe(0);
  expect(md.stdout).toStartWith("# plan the quarterly report\n\nSession `work` (cli), ");
  expect(md.stdout).toContain(
    '\n## You\n\nplan the quarterly report\n\n## fermix\n\n> tool: memory_recall {"query":"report"} → ',
  );
  expect(md.stdout).toContain(
    "\n\nStart with the zebra numbers.\n\n## You\n\nand then?\n\n## fermix\n\nThen the summary.\n",
  );
  expect((await sessions(["export", "work"], env)).stdout).toBe(md.stdout);

  const exported = JSON.parse((await sessions(["export", "work", "--format", "json"], env)).stdout);
  expect(exported.session).toEqual(work);
  expect(exported.messages.map((m: { role: string }) => m.role)).toEqual([
    "user",
    "assistant",
    "tool",
    "assistant",
    "user",
    "assistant",
  ]);
  expect(exported.messages[1].tool_calls[0]).toMatchObject({ name: "memory_recall", arguments: { query: "report" } });
  expect(exported.messages[2]).toMatchObject({ role: "tool", tool_name: "memory_recall" });

  const found = await json(["search", "zebra"], env);
  expect(found.result.sessions).toEqual([{ ...work, snippet: "Start with the zebra numbers." }]);
  const foundText = await sessions(["search", "the", "dentist"], env);
  expect(foundText.stdout).toMatch(/^telegram:12345\t[^\t]+\ttelegram\tremind me about the dentist\t.*dentist/);

  const tg = await sessions(["show", "telegram:12345"], env);
  expect(tg.stdout).toContain("\nYou · 2026-01-02 03:04\nremind me about the dentist\n");

  // Piped, without --yes: refused, and nothing changes.
  const before = (await sessions(["list"], env)).stdout;
  const refused = await sessions(["rm", "work"], env, "y\n");
  expect(refused.code).toBe(2);
  expect(refused.stdout).toBe("");
  expect(refused.stderr).toBe(
    "fermix: sessions rm: stdin is not a terminal, so there is no one to ask; pass --yes to delete work\nRun `fermix sessions rm --help` for usage.\n",
  );
  const refusedJson = await sessions(["rm", "work", "--json"], env);
  expect(refusedJson.code).toBe(2);
  expect(JSON.parse(refusedJson.stdout)).toMatchObject({ ok: false, error: { code: "usage" } });
  expect((await sessions(["list"], env)).stdout).toBe(before);

  expect(await sessions(["rm", "work", "--yes"], env)).toEqual({
    code: 0,
    stdout: "removed work (6 messages)\n",
    stderr: "",
  });
  expect((await json(["list"], env)).result.sessions.map((s: { id: string }) => s.id)).toEqual([
    fresh,
    "telegram:12345",
  ]);
  expect((await json(["search", "zebra"], env)).result.sessions).toEqual([]);
  expect(count(h, "SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'zebra'")).toBe(0);

  const removed = await json(["rm", "telegram:12345", "-y"], env);
  expect(removed.result).toEqual({ removed: { id: "telegram:12345", messages: 2 } });
  expect(count(h, "SELECT COUNT(*) AS n FROM summaries WHERE channel = 'telegram'")).toBe(0);
  expect(count(h, "SELECT COUNT(*) AS n FROM memories WHERE key = 'dentist'")).toBe(0);
  expect(count(h, "SELECT COUNT(*) AS n FROM messages WHERE channel = 'cli'")).toBe(2);

  const missing = await sessions(["show", "work"], env);
  expect(missing).toEqual({
    code: 1,
    stdout: "",
    stderr: "fermix: no session work; `fermix sessions list` shows them\n",
  });
  expect((await sessions(["rm", "nope", "--yes"], env)).code).toBe(1);
}

describe("fermix sessions (compiled binary)", () => {
  test("without a daemon: list, show, export, search and rm read and write memory.db directly", async () => {
    const { h, fake, env } = await setup();
    seedTelegram(h);
    await exercise(h, fake, env);
  });

  test("with a daemon running: the asks go through it, and rm leaves it working", async () => {
    const { h, fake, env } = await setup();
    seedTelegram(h);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await exercise(h, fake, env);
    // The daemon still answers in the removed session's name, which starts it again.
    fake.enqueue({ kind: "text", text: "A new start." });
    expect((await runFermix(["ask", "-s", "work", "hello again"], { env })).stdout).toBe("A new start.\n");
    const again = (await json(["list"], env)).result.sessions[0];
    expect(again).toMatchObject({ id: "work", title: "hello again", messages: 2 });
    expect(daemon.stderr()).not.toContain("database is locked");
  });

  test("no memory.db yet: no sessions, and nothing is created", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    expect(await sessions(["list"], env)).toEqual({ code: 0, stdout: "no sessions\n", stderr: "" });
    expect((await json(["list"], env)).result).toEqual({ sessions: [] });
    expect((await sessions(["search", "anything"], env)).stdout).toBe("no session matches\n");
    expect((await sessions(["rm", "ses_x", "--yes"], env)).code).toBe(1);
    expect(await Bun.file(join(h.home, "memory.db")).exists()).toBe(false);
  });

  test("completion offers the ids list shows, every channel's", async () => {
    const { h, fake, env } = await setup();
    seedTelegram(h);
    fake.enqueue({ kind: "text", text: "ok" });
    await runFermix(["ask", "-s", "work", "hello"], { env });
    const r = await runFermix(["complete", "--", "sessions", "show", ""], { env });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split("\n")
        .filter((l) => l && !l.startsWith(":"))
        .map((l) => l.split("\t")[0]),
    ).toEqual(["work", "telegram:12345"]);
    // `ask -s` still offers the ask sessions alone.
    const ask = await runFermix(["complete", "--", "ask", "-s", ""], { env });
    expect(
      ask.stdout
        .split("\n")
        .filter((l) => l && !l.startsWith(":"))
        .map((l) => l.split("\t")[0]),
    ).toEqual(["work"]);
  });

  test("usage errors exit 2", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    for (const args of [
      ["show"],
      ["list", "--limit", "0"],
      ["export", "x", "--format", "html"],
      ["search"],
      ["search", "--", "?!"],
    ]) {
      const r = await sessions(args, env);
      expect(r.code).toBe(2);
    }
  });

  test("on a terminal rm asks, and only y deletes", async () => {
    if (!Bun.which("script")) return console.warn("skipped: util-linux script is not installed");
    const { h, env } = await setup();
    seedTelegram(h);
    const rm = async (reply: string) => {
      const proc = Bun.spawn(["script", "-qec", `${await fermixBinary()} sessions rm telegram:12345`, "/dev/null"], {
        env: { ...env, PATH: "/usr/bin:/bin" },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      defer(() => proc.kill());
      const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let screen = "";
      const question = "Delete session telegram:12345 (2 messages)? [y/N] ";
      while (!screen.includes(question)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`rm ended before asking:\n${screen}`);
        screen += value;
      }
      proc.stdin.write(`${reply}\r`);
      await proc.stdin.flush();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        screen += value;
      }
      return { code: await proc.exited, screen };
    };
    const kept = await rm("n");
    expect(kept.code).toBe(1);
    expect(kept.screen).toContain("fermix: kept telegram:12345; nothing was deleted");
    expect(count(h, "SELECT COUNT(*) AS n FROM messages")).toBe(2);
    const gone = await rm("y");
    expect(gone.code).toBe(0);
    expect(gone.screen).toContain("removed telegram:12345 (2 messages)");
    expect(count(h, "SELECT COUNT(*) AS n FROM messages")).toBe(0);
  });
});
