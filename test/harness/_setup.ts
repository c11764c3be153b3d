import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarnessTools, harnessToolList } from "../../src/capabilities/builtins/coding-harness.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import type { ToolContext } from "../../src/capabilities/tool.ts";
import type { Config } from "../../src/config/schema.ts";
import { createCliDetector } from "../../src/harness/cli-detect.ts";
import { createHarnessService } from "../../src/harness/harness-service.ts";
import type { JobService } from "../../src/jobs/job-service-contract.ts";
import { migrate } from "../../src/memory/db.ts";
import type { ConversationKey } from "../../src/memory/messages-contract.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";
import { createSandbox } from "../../src/sandbox/create-sandbox.ts";
import { type FakeLogLine, installFakeVendors } from "../fake/harness/install.ts";

export const OPERATOR: Caller = { trust: "operator", local: false, attended: true };
export const TELEGRAM: ConversationKey = { channel: "telegram", chat: "4242" };

/** A harness over an in-memory memory.db, fake vendor CLIs on its PATH, and a chat that records what it is sent. */
export function harnessSetup(
  opts: { config?: Config["fermix_core"]; role?: "daemon" | "oneshot"; jobs?: () => Promise<JobService> } = {},
) {
  const base = mkdtempSync(join(tmpdir(), "fx-hr-"));
  const workspace = join(base, "ws");
  const repo = (name: string) => {
    const dir = join(workspace, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const bin = installFakeVendors(join(base, "bin"));
  const logFile = join(base, "fake.log");
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: base, FAKE_HARNESS_LOG: logFile, FERMIX_HOME: join(base, "h") };
  const db = openSqlite(":memory:");
  migrate(db);
  const config = {
    fermix_core: { harness: { approved: true, ...opts.config?.harness }, ...opts.config },
    sandbox: { workspace_root: workspace },
  } as Config;
  const sent: Array<{ chat: string; text: string }> = [];
  const service = createHarnessService({
    db,
    role: opts.role ?? "daemon",
    config: () => config,
    env,
    home: join(base, "h"),
    now: Date.now,
    log: { info() {}, warn() {} },
    cli: createCliDetector(env.PATH),
    channel: (platform) =>
      platform === "telegram"
        ? {
            send: async (chat, text) => {
              sent.push({ chat: chat.chatId, text: (text as { markdown: string }).markdown });
              return [];
            },
          }
        : undefined,
    milestoneIntervalMs: 0,
    jobs: opts.jobs,
  });
  const tools = harnessToolList(createHarnessTools({ service: async () => service }), {
    history: true,
    vendors: ["codex", "claude"],
  });
  const registry = createRegistry(tools);
  const sandbox = createSandbox({
    userHome: base,
    fermixHome: join(base, "h"),
    config: config.sandbox,
    which: () => null,
  });
  const context = (conversation: ConversationKey = TELEGRAM, caller: Caller = OPERATOR) =>
    ({
      caller,
      conversation,
      signal: new AbortController().signal,
      now: Date.now,
      config,
      sandbox,
      notify: () => {},
      surface: () => tools,
    }) as unknown as ToolContext;
  const call = async (name: string, args: Record<string, unknown>, ctx = context()) =>
    registry.dispatch({ type: "tool_call", id: `c_${name}`, name, arguments: args }, ctx);
  const runIdOf = (content: string) => /hr_[0-9a-f]{12}/.exec(content)?.[0];
  const fakeLog = (): FakeLogLine[] => {
    try {
      return readFileSync(logFile, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  /** Waits (bounded) until the fake has logged `n` lines: it started and said so. */
  const fakeStarted = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (fakeLog().length < n) {
      if (Date.now() > deadline) throw new Error(`the fake logged ${fakeLog().length} of ${n} lines`);
      await Bun.sleep(10);
    }
    return fakeLog();
  };
  return {
    base,
    workspace,
    repo,
    db,
    config,
    service,
    sent,
    call,
    context,
    runIdOf,
    fakeLog,
    fakeStarted,
    cleanup: async () => {
      await service.stopAll();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Whether any process is left in group `pgid`. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
