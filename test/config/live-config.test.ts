import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLiveConfig } from "../../src/config/live-config.ts";
import type { Log } from "../../src/observability/log.ts";

const quiet = { warn() {} } as unknown as Log;

describe("createLiveConfig", () => {
  test("follows config.toml as it appears, changes and goes away", () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-live-"));
    const file = join(dir, "config.toml");
    const initial = { fermix_core: { agent: { name: "initial" } } };
    const config = createLiveConfig(file, initial, quiet);
    try {
      // No file at the start: the initial config stands, asked as often as a turn asks.
      expect(config()).toBe(initial);
      expect(config()).toBe(initial);
      writeFileSync(file, '[fermix_core.agent]\nname = "written"\n');
      expect(config().fermix_core?.agent?.name).toBe("written");
      writeFileSync(file, '[fermix_core.agent]\nname = "changed"\n');
      utimesSync(file, new Date(), new Date(Date.now() + 5_000));
      expect(config().fermix_core?.agent?.name).toBe("changed");
      rmSync(file);
      expect(config()).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
