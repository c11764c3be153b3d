import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLiveConfig } from "../../src/config/live-config.ts";
import type { Log } from "../../src/observability/log.ts";

const quiet = { warn() {} } as unknown as Log;
/** The next turn of the event loop, where a turn that starts after a change runs. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("createLiveConfig", () => {
  test("follows config.toml as it appears, changes and goes away, from the next turn of the loop", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-live-"));
    const file = join(dir, "config.toml");
    const initial = { fermix_core: { agent: { name: "initial" } } };
    const config = createLiveConfig(file, initial, quiet);
    try {
      // No file at the start: the initial config stands, asked as often as a turn asks.
      expect(config()).toBe(initial);
      expect(config()).toBe(initial);
      writeFileSync(file, '[fermix_core.agent]\nname = "written"\n');
      await nextTurn();
      expect(config().fermix_core?.agent?.name).toBe("written");
      writeFileSync(file, '[fermix_core.agent]\nname = "changed"\n');
      utimesSync(file, new Date(), new Date(Date.now() + 5_000));
      await nextTurn();
      expect(config().fermix_core?.agent?.name).toBe("changed");
      rmSync(file);
      await nextTurn();
      expect(config()).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the asks of one turn of the loop share one look at the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-live-"));
    const file = join(dir, "config.toml");
    const config = createLiveConfig(file, {}, quiet);
    try {
      const before = config();
      writeFileSync(file, '[fermix_core.agent]\nname = "mid-turn"\n');
      // Still the same turn of the loop: what it looked at first.
      expect(config()).toBe(before);
      await nextTurn();
      expect(config().fermix_core?.agent?.name).toBe("mid-turn");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
