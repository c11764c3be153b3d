import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { CLAUDE_PROTECTED_EDITS } from "../../src/harness/argv.ts";
import type { JobService } from "../../src/jobs/job-service-contract.ts";
import { groupEmptied, processIdentity } from "../../src/plugins/mcp-rail/child-groups.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { harnessSetup, TELEGRAM } from "./_setup.ts";

const defer = cleanupAfterEach();
const setup = (opts?: Parameters<typeof harnessSetup>[0]) => {
  const s = harnessSetup(opts);
  defer(s.cleanup);
  return s;
};

describe("codex_run", () => {
  test("runs codex exec with the exact argv, posts milestones and delivers the final message to the chat", async () => {
    const h = setup();
    const repo = h.repo("app");
    const r = await h.call("codex_run", {
      prompt: "fix the add bug",
      cwd: repo,
      model: "gpt-5-codex",
      effort: "high",
      sandbox: "workspace-write",
      add_dirs: [h.repo("shared")],
      ephemeral: true,
      profile: "work",
    });
    expect(r.isError).toBeUndefined();
    expect(r.content).toContain("I'll report back");
    const id = h.runIdOf(r.content)!;
    expect(id).toMatch(/^hr_[0-9a-f]{12}$/);
    const run = await h.service.settled(id);
    expect(run?.status).toBe("completed");
    const runDir = join(h.base, "h", "harness", "runs", id);
    expect(h.fakeLog()[0]!.args).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-C",
      repo,
      "-m",
      "gpt-5-codex",
      "-c",
      "model_reasoning_effort=high",
      "-s",
      "workspace-write",
      "-p",
      "work",
      "--add-dir",
      join(h.workspace, "shared"),
      "--ephemeral",
      "-o",
      join(runDir, "last-message.txt"),
      "fix the add bug",
    ]);
    expect(h.fakeLog()[0]!.cwd).toBe(repo);
    expect(run?.vendorSession).toBe("0199a213-81c0-7800-8aa1-bbab2a035a53");
    expect(run?.finalMessage).toContain("Fixed the off-by-one");
    expect(run?.usage).toEqual({ input_tokens: 2400, cached_input_tokens: 1200, output_tokens: 310 });
    expect(run?.delivery).toBe("sent");
    const texts = h.sent.map((m) => m.text);
    expect(texts.some((t) => t.startsWith(`⏳ ${id} (Codex): `))).toBe(true);
    const final = texts[texts.length - 1]!;
    expect(final).toContain(`Coding run ${id} (Codex in ${repo}) finished`);
    expect(final).toContain("Fixed the off-by-one in src/add.ts");
    expect(h.sent.every((m) => m.chat === TELEGRAM.chat)).toBe(true);
  });

  test("resume continues a thread; sandbox with resume is refused", async () => {
    const h = setup();
    const repo = h.repo("app");
    const bad = await h.call("codex_run", { prompt: "go on", cwd: repo, resume: "th_1", sandbox: "read-only" });
    expect(bad.content).toContain("Refused");
    const r = await h.call("codex_run", { prompt: "go on", cwd: repo, resume: "th_1", progress: "quiet" });
    const id = h.runIdOf(r.content)!;
    await h.service.settled(id);
    const args = h.fakeLog()[0]!.args!;
    expect(args.slice(0, 5)).toEqual(["exec", "resume", "th_1", "--json", "--skip-git-repo-check"]);
    expect(args).not.toContain("-C");
    // progress quiet: only the result reaches the chat.
    expect(h.sent.map((m) => m.text.startsWith("⏳"))).toEqual([false]);
  });

  test("danger-full-access is refused with a sentence, and nothing starts", async () => {
    const h = setup();
    const r = await h.call("codex_run", { prompt: "x", cwd: h.repo("app"), sandbox: "danger-full-access" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('sandbox "danger-full-access" is refused');
    expect(h.fakeLog()).toEqual([]);
    expect(h.service.list()).toEqual([]);
  });

  test("no value the model gives can become a CLI option", async () => {
    const h = setup();
    const cwd = h.repo("app");
    const a = await h.call("codex_run", { prompt: "--dangerously-bypass-approvals-and-sandbox", cwd });
    expect(a.content).toContain('prompt may not start with "-"');
    const b = await h.call("claude_code_run", { prompt: "x", cwd, resume: "--dangerously-skip-permissions" });
    expect(b.content).toContain('resume may not start with "-"');
    const c = await h.call("claude_code_run", { prompt: "x", cwd, allowed_tools: ["Bash", "--verbose"] });
    expect(c.content).toContain("allowed_tools may not");
    expect(h.fakeLog()).toEqual([]);
    // Claude's prompt follows "--": a leading dash there is only text.
    const d = await h.call("claude_code_run", { prompt: "- list the TODOs", cwd, progress: "quiet" });
    await h.service.settled(h.runIdOf(d.content)!);
    expect(h.fakeLog()[0]!.args!.slice(-2)).toEqual(["--", "- list the TODOs"]);
  });

  test("a cwd or add_dir outside the sandbox roots is refused as cwd_denied", async () => {
    const h = setup();
    const outside = join(h.base, "elsewhere");
    require("node:fs").mkdirSync(outside);
    const r = await h.call("codex_run", { prompt: "x", cwd: outside });
    expect(r.content).toStartWith("Refused (cwd_denied)");
    const r2 = await h.call("codex_run", { prompt: "x", cwd: h.repo("app"), add_dirs: [outside] });
    expect(r2.content).toStartWith("Refused (cwd_denied)");
    expect(h.fakeLog()).toEqual([]);
  });

  test("a vendor failure event and a non-zero exit are failed runs, delivered with the reason", async () => {
    const h = setup();
    const a = await h.service.settled(
      h.runIdOf((await h.call("codex_run", { prompt: "[vendor-error]", cwd: h.repo("a") })).content)!,
    );
    expect(a?.status).toBe("failed");
    expect(a?.failureTag).toBe("vendor_error");
    expect(a?.error).toBe("stream disconnected before completion");
    const b = await h.service.settled(
      h.runIdOf((await h.call("codex_run", { prompt: "[fail]", cwd: h.repo("b") })).content)!,
    );
    expect(b?.failureTag).toBe("exit_nonzero");
    expect(b?.error).toContain("unexpected argument '--bogus'");
    expect(h.sent.at(-1)?.text).toContain("failed [exit_nonzero]");
  });

  test("output that stops being JSON fails the run past max_framing_errors", async () => {
    const h = setup({ config: { harness: { approved: true, max_framing_errors: 5 } } });
    const run = await h.service.settled(
      h.runIdOf((await h.call("codex_run", { prompt: "[garbage]", cwd: h.repo("a") })).content)!,
    );
    expect(run?.failureTag).toBe("framing");
    expect(run?.framingErrors).toBeGreaterThan(5);
  });
});

describe("claude_code_run", () => {
  test("runs claude -p with the exact argv and delivers its result", async () => {
    const h = setup();
    const repo = h.repo("app");
    const r = await h.call("claude_code_run", {
      prompt: "make the tests pass",
      cwd: repo,
      model: "sonnet",
      effort: "high",
      permission_mode: "acceptEdits",
      allowed_tools: ["Bash", "Edit"],
      disallowed_tools: ["WebFetch"],
      append_system_prompt: "Be brief.",
      max_turns: 8,
      resume: "sess_1",
    });
    const id = h.runIdOf(r.content)!;
    const run = await h.service.settled(id);
    expect(h.fakeLog()[0]!.args).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "sonnet",
      "--effort",
      "high",
      "--permission-mode",
      "acceptEdits",
      "--allowed-tools",
      "Bash,Edit",
      "--disallowed-tools",
      ["WebFetch", ...CLAUDE_PROTECTED_EDITS].join(","),
      "--append-system-prompt",
      "Be brief.",
      "--max-turns",
      "8",
      "--resume",
      "sess_1",
      "--",
      "make the tests pass",
    ]);
    expect(run?.status).toBe("completed");
    expect(run?.finalMessage).toBe("All tests pass now. (make the tests pass)");
    expect(run?.usage).toMatchObject({ total_cost_usd: 0.0123, num_turns: 2 });
    expect(h.sent.some((m) => m.text.includes("Bash `bun test`"))).toBe(true);
    expect(h.sent.at(-1)?.text).toContain("All tests pass now.");
  });

  test("bypassPermissions is refused; a result with is_error fails the run", async () => {
    const h = setup();
    const r = await h.call("claude_code_run", { prompt: "x", cwd: h.repo("a"), permission_mode: "bypassPermissions" });
    expect(r.content).toContain("bypassPermissions");
    expect(r.content).toContain("refused");
    const id = h.runIdOf((await h.call("claude_code_run", { prompt: "[vendor-error]", cwd: h.repo("a") })).content)!;
    const run = await h.service.settled(id);
    expect(run?.failureTag).toBe("vendor_error");
    expect(run?.error).toContain("error_max_turns");
  });
});

describe("admission, cancel and clocks", () => {
  test("max_active refuses a third run; cancel ends the whole process group", async () => {
    const h = setup();
    const one = h.runIdOf((await h.call("codex_run", { prompt: "[hang]", cwd: h.repo("a") })).content)!;
    const two = h.runIdOf((await h.call("claude_code_run", { prompt: "[hang]", cwd: h.repo("b") })).content)!;
    const third = await h.call("codex_run", { prompt: "x", cwd: h.repo("c") });
    expect(third.content).toStartWith("Refused (max_active)");
    const log = await h.fakeStarted(4);
    const pids = [h.service.get(one)!.pid!, h.service.get(two)!.pid!];
    expect(
      log
        .filter((l) => l.pid)
        .map((l) => l.pid)
        .sort(),
    ).toEqual([...pids].sort());
    const helpers = log.filter((l) => l.helper).map((l) => l.helper!);
    expect(helpers).toHaveLength(2);
    const cancelled = await h.call("cancel_coding_run", { run_id: one });
    expect(cancelled.content).toContain(`Cancelled coding run ${one}`);
    expect(h.service.get(one)?.status).toBe("cancelled");
    expect(await groupEmptied(pids[0]!, 2000)).toBe(true);
    // The other run still works; the slot freed by the cancel admits a new one.
    expect(h.service.get(two)?.status).toBe("running");
    const again = await h.call("codex_run", { prompt: "ok", cwd: h.repo("c") });
    expect(again.content).toContain("Started coding run");
    await h.service.cancel(two);
    expect(await groupEmptied(pids[1]!, 2000)).toBe(true);
    // Gone, or at most a zombie waiting for init to reap it: nothing of the run still executes.
    for (const helper of helpers) expect(processIdentity(helper)).toBeUndefined();
  });

  test("a second run in the same workspace (or inside it) is refused while one runs", async () => {
    const h = setup();
    const repo = h.repo("app");
    const first = h.runIdOf((await h.call("codex_run", { prompt: "[hang]", cwd: repo })).content)!;
    const same = await h.call("claude_code_run", { prompt: "x", cwd: repo });
    expect(same.content).toStartWith("Refused (workspace_locked)");
    expect(same.content).toContain(first);
    const inner = await h.call("codex_run", { prompt: "x", cwd: h.repo("app/pkg") });
    expect(inner.content).toStartWith("Refused (workspace_locked)");
    await h.service.cancel(first);
    const after = await h.call("codex_run", { prompt: "ok", cwd: repo });
    expect(after.content).toContain("Started coding run");
  });

  test("a run past its timeout is killed and failed with the timeout tag", async () => {
    const h = setup();
    const id = h.runIdOf(
      (await h.call("codex_run", { prompt: "[hang]", cwd: h.repo("a"), timeout_minutes: 0.002 })).content,
    )!;
    const run = await h.service.settled(id);
    expect(run?.status).toBe("failed");
    expect(run?.failureTag).toBe("timeout");
    expect(await groupEmptied(run!.pid!, 2000)).toBe(true);
    expect(h.sent.at(-1)?.text).toContain("failed [timeout]");
  });

  test("a run that prints nothing for inactivity_minutes is stopped with the inactivity tag", async () => {
    const h = setup({ config: { harness: { approved: true, inactivity_minutes: 0.002 } } });
    const id = h.runIdOf((await h.call("claude_code_run", { prompt: "[hang]", cwd: h.repo("a") })).content)!;
    const run = await h.service.settled(id);
    expect(run).toMatchObject({ status: "failed", failureTag: "inactivity" });
    expect(await groupEmptied(run!.pid!, 2000)).toBe(true);
  });

  test("timeout_minutes above 240 is refused by the schema", async () => {
    const h = setup();
    const r = await h.call("codex_run", { prompt: "x", cwd: h.repo("a"), timeout_minutes: 241 });
    expect(r.content).toContain("at most 240 minutes");
  });

  test("without the consent, or in a one-shot process, nothing starts", async () => {
    const h = setup({ config: { harness: { approved: false } } });
    const r = await h.call("codex_run", { prompt: "x", cwd: h.repo("a") });
    expect(r.content).toStartWith("Refused (consent_required)");
    const o = setup({ role: "oneshot" });
    const r2 = await o.call("codex_run", { prompt: "x", cwd: o.repo("a") });
    expect(r2.content).toStartWith("Refused (daemon_required)");
  });
});

describe("records and delivery", () => {
  test("a CLI session's result waits for its next turn, once", async () => {
    const h = setup();
    const cli = { channel: "cli", chat: "ses_1" };
    const id = h.runIdOf((await h.call("codex_run", { prompt: "fix", cwd: h.repo("a") }, h.context(cli))).content)!;
    expect((await h.service.settled(id))?.delivery).toBe("pending");
    expect(h.service.takePending({ channel: "cli", chat: "ses_2" })).toEqual([]);
    const pending = h.service.takePending(cli);
    expect(pending.map((p) => p.run.id)).toEqual([id]);
    expect(pending[0]!.message).toContain("Fixed the off-by-one");
    expect(h.service.takePending(cli)).toEqual([]);
  });

  test("a scheduled job's run follows the job's delivery, without milestones", async () => {
    const jobs: Record<string, unknown> = {
      job_chat: { id: "job_chat", deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "77" } },
      job_quiet: { id: "job_quiet", deliveryMode: "none", deliveryTarget: null },
    };
    const h = setup({ jobs: async () => ({ store: { get: (id: string) => jobs[id] } }) as unknown as JobService });
    const asJob = (jobId: string) =>
      h.context({ channel: "job", chat: jobId }, { trust: "operator", local: false, attended: false, jobId });
    const a = h.runIdOf(
      (await h.call("codex_run", { prompt: "nightly", cwd: h.repo("a") }, asJob("job_chat"))).content,
    )!;
    expect((await h.service.settled(a))?.delivery).toBe("sent");
    expect(h.sent.map((m) => m.chat)).toEqual(["77"]);
    expect(h.sent[0]!.text).toContain("Fixed the off-by-one");
    const b = h.runIdOf(
      (await h.call("codex_run", { prompt: "nightly", cwd: h.repo("b") }, asJob("job_quiet"))).content,
    )!;
    expect((await h.service.settled(b))?.delivery).toBe("stored");
    expect(h.sent).toHaveLength(1);
  });

  test("list_coding_runs and get_coding_run read the history", async () => {
    const h = setup();
    const id = h.runIdOf((await h.call("codex_run", { prompt: "fix", cwd: h.repo("a") })).content)!;
    await h.service.settled(id);
    const list = await h.call("list_coding_runs", {});
    expect(list.content).toContain(id);
    const got = JSON.parse((await h.call("get_coding_run", { run_id: id })).content);
    expect(got).toMatchObject({ id, vendor: "codex", status: "completed", delivery: "sent" });
    expect(got.argv[0]).toBe("codex");
    expect((await h.call("get_coding_run", { run_id: "hr_000000000000" })).isError).toBe(true);
  });

  test("runs a previous daemon left active become interrupted when the next one starts", async () => {
    const h = setup();
    h.db
      .query(
        `INSERT INTO harness_runs (id, vendor, status, cwd, prompt, argv_json, params_json, origin_channel, origin_chat,
           started_at, updated_at) VALUES ('hr_aaaaaaaaaaaa', 'codex', 'running', '/r', 'p', '[]', '{}', 'cli', 's', 1, 1)`,
      )
      .run();
    const { createHarnessService } = await import("../../src/harness/harness-service.ts");
    const next = createHarnessService({
      db: h.db,
      role: "daemon",
      config: () => h.config,
      env: {},
      home: h.base,
      now: Date.now,
      log: { info() {}, warn() {} },
      cli: () => null,
    });
    expect(next.get("hr_aaaaaaaaaaaa")?.status).toBe("interrupted");
  });
});
