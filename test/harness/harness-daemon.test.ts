import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { groupEmptied } from "../../src/plugins/mcp-rail/child-groups.ts";
import { installFakeVendors } from "../fake/harness/install.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { type FakeTelegram, startFakeTelegram, textMessage } from "../fake/telegram-bot-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * The coding harness end to end on the compiled binary: fake `codex` / `claude` executables on the daemon's PATH
 * (test/fake/harness/fake-vendor.ts) emit the vendors' JSON event streams; the scripted model calls codex_run in a
 * Telegram turn and in a CLI session; `fermix capabilities` shows the consent gate.
 */

const KEY = "sk-test-harness-0123456789abcdef";
const OWNER = 1001;
const defer = cleanupAfterEach();

type RunRow = { id: string; status: string; failure_tag: string | null; delivery_status: string; pid: number | null };

async function setup(opts: { telegram?: boolean; harness?: string[] } = {}) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  const bin = installFakeVendors(join(h.userHome, "bin"));
  const repo = join(h.home, "workspace", "app");
  mkdirSync(repo, { recursive: true });
  const tg = opts.telegram ? await startFakeTelegram() : undefined;
  if (tg) defer(() => tg.close());
  h.writeConfig(
    [
      "[fermix_core.harness]",
      ...(opts.harness ?? ["approved = true"]),
      ...(tg
        ? [
            "[fermix_channels.telegram]",
            "enabled = true",
            `bot_token = "${tg.token}"`,
            `owner_user_id = ${OWNER}`,
            `api_base_url = "${tg.baseUrl}"`,
            'streaming = "off"',
          ]
        : []),
      "",
    ].join("\n"),
  );
  const env = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    PATH: `${bin}:/usr/bin:/bin`,
    FAKE_HARNESS_LOG: join(h.userHome, "fake.log"),
  };
  const runs = (): RunRow[] => {
    const db = new Database(join(h.home, "memory.db"), { readonly: true });
    try {
      return db.query("SELECT * FROM harness_runs ORDER BY started_at").all() as RunRow[];
    } catch {
      return [];
    } finally {
      db.close();
    }
  };
  /** Polls memory.db (bounded) until the runs satisfy `done`. */
  const runsUntil = async (done: (rows: RunRow[]) => boolean, ms = 30_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const rows = runs();
      if (done(rows)) return rows;
      if (Date.now() > end) throw new Error(`harness runs never got there: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { h, llm, tg, env, repo, runs, runsUntil, bin };
}

function sentTexts(tg: FakeTelegram): string[] {
  return tg.calls.filter((c) => c.method === "sendMessage").map((c) => String(c.params.text));
}

describe("coding harness through the compiled daemon", () => {
  test("a Telegram turn starts codex_run; milestones and the final message come back to the chat", async () => {
    const { llm, tg, env, repo, runsUntil } = await setup({ telegram: true });
    const polling = tg!.waitForCall("getUpdates", (c) => c.params.timeout === 50);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await polling;
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "codex_run", arguments: { prompt: "fix the add bug", cwd: repo } }] },
      { kind: "text", text: "Codex is on it; I'll tell you when it is done." },
    );
    const done = tg!.waitForCall("sendMessage", (c) => String(c.params.text).includes("finished"));
    tg!.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "fix the add bug in app" }));
    await (await done).answered;
    const texts = sentTexts(tg!);
    expect(texts).toContain("Codex is on it; I'll tell you when it is done.");
    expect(texts.some((t) => /^⏳ hr_[0-9a-f]{12} \(Codex\): /.test(t))).toBe(true);
    const final = texts.find((t) => t.includes("finished"))!;
    expect(final).toContain("Fixed the off-by-one in src/add.ts; tests pass. (fix the add bug)");
    const output = toolOutputs(llm.requests[1]!)[0]!;
    expect(output).toMatch(/^Started coding run hr_[0-9a-f]{12} \(Codex in /);
    expect(output).toContain("I'll report back");
    const [row] = await runsUntil((rows) => rows[0]?.delivery_status === "sent");
    expect(row).toMatchObject({ status: "completed", delivery_status: "sent" });
  }, 60_000);

  test("a CLI session's result is shown before its next ask; stopping the daemon ends a run's processes", async () => {
    const { llm, env, repo, runsUntil } = await setup();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "claude_code_run", arguments: { prompt: "tidy up", cwd: repo } }] },
      { kind: "text", text: "Started." },
    );
    expect((await runFermix(["ask", "-s", "dev", "tidy the repo"], { env: cli })).code).toBe(0);
    await runsUntil((rows) => rows[0]?.delivery_status === "pending");
    llm.setDefault({ kind: "text", text: "ok" });
    const back = await runFermix(["ask", "-s", "dev", "anything?"], { env: cli });
    expect(back.stderr).toContain("fermix: Coding run hr_");
    expect(back.stderr).toContain("All tests pass now. (tidy up)");
    const again = await runFermix(["ask", "-s", "dev", "and now?"], { env: cli });
    expect(again.stderr).not.toContain("Coding run");

    // A run that never ends: the daemon's stop takes its whole process group along and records it interrupted.
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "codex_run", arguments: { prompt: "[hang] forever", cwd: repo } }] },
      { kind: "text", text: "Started." },
    );
    expect((await runFermix(["ask", "-s", "dev", "hang"], { env: cli })).code).toBe(0);
    const rows = await runsUntil((r) => r.length === 2 && r[1]!.status === "running" && r[1]!.pid !== null);
    const pid = rows[1]!.pid!;
    await daemon.stop();
    expect(await groupEmptied(pid, 5_000)).toBe(true);
    expect((await runsUntil((r) => r[1]!.status !== "running"))[1]!.status).toBe("interrupted");
  }, 60_000);

  test("after a SIGKILL the next daemon reaps the run's process group and marks the run interrupted", async () => {
    const { llm, env, repo, runsUntil } = await setup();
    const daemon = await startFermixDaemon(env);
    const cli = { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME };
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "codex_run", arguments: { prompt: "[hang]", cwd: repo } }] },
      { kind: "text", text: "Started." },
    );
    expect((await runFermix(["ask", "hang"], { env: cli })).code).toBe(0);
    const [row] = await runsUntil((r) => r[0]?.status === "running" && r[0].pid !== null);
    process.kill(daemon.pid, "SIGKILL");
    await daemon.stop();
    const next = await startFermixDaemon(env);
    defer(() => next.stop());
    expect(await groupEmptied(row!.pid!, 10_000)).toBe(true);
    expect((await runsUntil((r) => r[0]?.status !== "running"))[0]!.status).toBe("interrupted");
  }, 60_000);

  test("a turn names no harness tool before the consent, and the harness tools once approved", async () => {
    const names = async (harness: string[]) => {
      const { llm, env } = await setup({ harness });
      llm.enqueue({ kind: "text", text: "ok" });
      expect((await runFermix(["ask", "--no-daemon", "hello"], { env })).code).toBe(0);
      const body = JSON.stringify(llm.requests[0]!.body);
      return ["codex_run", "claude_code_run", "list_coding_runs", "get_coding_run", "cancel_coding_run"].filter((n) =>
        body.includes(n),
      );
    };
    expect(await names([])).toEqual([]);
    expect(await names(["approved = true", 'default_vendor = "codex"'])).toEqual([
      "codex_run",
      "list_coding_runs",
      "get_coding_run",
      "cancel_coding_run",
    ]);
  }, 60_000);

  test("fermix capabilities lists no harness tool until approved; then each run tool whose CLI is found", async () => {
    const list = async (harness: string[], path?: string) => {
      const { env } = await setup({ harness });
      const r = await runFermix(["capabilities", "--json"], {
        env: { FERMIX_HOME: env.FERMIX_HOME, HOME: env.HOME, PATH: path ?? env.PATH },
      });
      expect(r.code).toBe(0);
      const names: string[] = JSON.parse(r.stdout).result.capabilities.map((c: { name: string }) => c.name);
      return names.filter((n) => /coding|codex|claude/.test(n));
    };
    expect(await list([])).toEqual([]);
    expect(await list(["approved = false"])).toEqual([]);
    expect(await list(["approved = true"])).toEqual([
      "codex_run",
      "claude_code_run",
      "list_coding_runs",
      "get_coding_run",
      "cancel_coding_run",
    ]);
    expect(await list(["approved = true", 'default_vendor = "claude"'])).toEqual([
      "claude_code_run",
      "list_coding_runs",
      "get_coding_run",
      "cancel_coding_run",
    ]);
    expect(await list(["approved = true", "enabled = false"])).toEqual([]);
    // No vendor CLI on PATH: only the run-history tools.
    expect(await list(["approved = true"], "/usr/bin:/bin")).toEqual([
      "list_coding_runs",
      "get_coding_run",
      "cancel_coding_run",
    ]);
  }, 60_000);
});
