import { expect, test } from "bun:test";
import { computerUseState, describeComputerUse } from "../../src/computer-use/computer-use-state.ts";
import type { OpenDriver } from "../../src/computer-use/driver-contract.ts";
import type { Config } from "../../src/config/schema.ts";

const neverOpened: OpenDriver = async () => {
  throw new Error("browser mode must not try a display");
};
const browserMode = (executable: string) =>
  ({
    fermix_core: {
      computer_use: { enabled: true, mode: "browser", display_width_px: 1024, display_height_px: 640 },
      tools: { browser: { executable } },
    },
  }) as Config;

test("browser mode: ready with a Chromium and no DISPLAY at all, on any platform the browser runs", async () => {
  // The test's own binary stands in for a Chromium: readiness only asks whether it exists.
  const s = await computerUseState(browserMode(process.execPath), { env: {}, platform: "darwin", open: neverOpened });
  expect(s).toEqual({ state: "ready", display: "browser", width: 1024, height: 640, browser: process.execPath });
  expect(describeComputerUse(s)).toBe(`ready (browser mode: the browser tool's page, Chromium ${process.execPath})`);
});

test("browser mode without a Chromium: why not, and the fix", async () => {
  const s = await computerUseState(browserMode("/nonexistent/chromium"), { env: {}, open: neverOpened });
  expect(s.state).toBe("unavailable");
  if (s.state !== "unavailable") return;
  expect(s.reason).toStartWith('browser mode needs a Chromium: [fermix_core.tools.browser] executable = "/nonexistent');
  expect(s.fix).toContain("apt install chromium");
});
