import { describe, expect, test } from "bun:test";
import type { TurnOpening } from "../../src/agent/turn-addition.ts";
import type { Config } from "../../src/config/schema.ts";
import { type HarnessDeps, harnessSubsystem } from "../../src/harness/harness-subsystem.ts";
import { migrate } from "../../src/memory/db.ts";
import { openSqlite } from "../../src/runtime/sqlite.ts";
import { bindSubsystem } from "../../src/subsystem.ts";
import { OPERATOR } from "./_setup.ts";

const KEY = { channel: "cli", chat: "ses_1" };

function harnessPart(config: Config) {
  const db = openSqlite(":memory:");
  migrate(db);
  const deps = {
    db: () => db,
    role: "oneshot",
    liveConfig: () => config,
    env: { PATH: "/nonexistent" },
    paths: { home: "/nonexistent" },
    now: Date.now,
    log: { withTag: () => ({ info() {}, warn() {}, error() {} }) },
    channel: () => undefined,
    jobs: async () => {
      throw new Error("no jobs here");
    },
  } as unknown as HarnessDeps;
  const notices: string[] = [];
  const opening: TurnOpening = { key: KEY, caller: OPERATOR, config, job: false, onNotice: (t) => notices.push(t) };
  return { db, part: bindSubsystem(harnessSubsystem, deps), opening, notices };
}

describe("the coding harness in a turn", () => {
  test("neither approved nor a result waiting: the turn leaves its code unloaded", async () => {
    const h = harnessPart({} as Config);
    expect(await h.part.turn(h.opening)).toBeUndefined();
    expect(h.part.loaded()).toBe(false);
    expect(h.part.status().state).toBe("off");
  });

  test("a result waiting for the conversation is shown before its next turn, approved or not", async () => {
    const h = harnessPart({} as Config);
    const now = Date.now();
    h.db
      .query(
        `INSERT INTO harness_runs (id, vendor, status, cwd, prompt, argv_json, params_json, origin_channel, origin_chat,
           final_message, delivery_status, started_at, completed_at, updated_at)
         VALUES ('hr_1', 'codex', 'completed', '/tmp', 'fix it', '[]', '{}', 'cli', 'ses_1', 'Fixed the bug.', 'pending',
           $now, $now, $now)`,
      )
      .run({ now });
    expect(await h.part.turn(h.opening)).toBeUndefined();
    expect(h.part.loaded()).toBe(true);
    expect(h.notices.join("\n")).toContain("Fixed the bug.");
  });
});
