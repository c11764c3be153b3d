import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../../src/config/load.ts";
import { createComputerUseWeb } from "../../../src/web/computer-use-deps.ts";
import { createConfigWrites } from "../../../src/web/config-writes.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { pluginsPage } from "../../../src/web/pages/plugins.ts";
import type { PluginsWeb } from "../../../src/web/plugin-deps.ts";
import { sizedDesktop } from "../../fake/sized-desktop.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { ctx, form } from "./_cards-fixture.ts";

const defer = cleanupAfterEach();
const CONFIG = ["# desktop", "[fermix_core.computer_use]", "max_actions = 12 # short tasks only", ""].join("\n");

/** The Plugins page with no plugins and the real Computer Use card on a temp config.toml. */
function fixture(toml: string, env: Record<string, string> = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const file = h.writeConfig(toml);
  const opened: string[] = [];
  const writes = createConfigWrites({ paths: { config: file, secrets: `${h.home}/secrets` } });
  const plugins = { list: async () => ({ daemon: true, plugins: [] }) } as unknown as PluginsWeb;
  const deps = {
    plugins,
    computerUse: createComputerUseWeb(writes, { env, platform: "linux", open: sizedDesktop(1280, 800, opened) }),
  } as WebDeps;
  const render = async () => (await pluginsPage.render(deps, ctx())).html;
  return { deps, opened, render, read: () => Bun.file(file).text() };
}

describe("Plugins page: the Computer Use card", () => {
  test("off: says Off, offers Turn on, and touches no display", async () => {
    const f = fixture(CONFIG, { DISPLAY: ":5" });
    const out = await f.render();
    expect(out).toContain('<section class="card" id="computer-use" aria-label="Computer Use">');
    expect(out).toContain('<strong data-status="computer-use">Off</strong>');
    expect(out).toContain('<input type="hidden" name="action" value="computer_use">');
    expect(out).toContain('<input type="hidden" name="enabled" value="true"><button>Turn on</button>');
    expect(out).toContain('<input type="hidden" name="csrf" value="tok">');
    expect(f.opened).toEqual([]);
  });

  test("on, with a display to drive: Ready, the display and the screen's size", async () => {
    const f = fixture(`${CONFIG}enabled = true\n`, { DISPLAY: ":5" });
    const out = await f.render();
    expect(out).toContain(
      '<strong class="ok" data-status="computer-use">Ready</strong> (display <code>:5</code>, 1280×800 screen)',
    );
    expect(out).toContain('<input type="hidden" name="enabled" value="false"><button>Turn off</button>');
    expect(f.opened).toEqual([":5"]);
  });

  test("on, with no DISPLAY: Needs setup with the reason and the fix", async () => {
    const f = fixture(`${CONFIG}enabled = true\n`);
    const out = await f.render();
    expect(out).toMatch(
      /<strong class="warn" data-status="computer-use">Needs setup: [^<]*DISPLAY[^<]*<\/strong> — \S/,
    );
    expect(f.opened).toEqual([]);
  });

  test("Turn on writes enabled = true in place, comments kept; Turn off writes it back", async () => {
    const f = fixture(CONFIG, { DISPLAY: ":5" });
    const on = await pluginsPage.submit!(form({ action: "computer_use", enabled: "true" }), f.deps);
    expect(on).toEqual({
      ok: true,
      notice: "computer use: turned on; run fermix restart for the daemon to use it",
    });
    expect(await f.read()).toBe(`${CONFIG}enabled = true\n`);
    expect(await f.render()).toContain(">Ready</strong>");
    expect(await pluginsPage.submit!(form({ action: "computer_use", enabled: "true" }), f.deps)).toEqual({
      ok: true,
      notice: "computer use: already on",
    });
    expect(await pluginsPage.submit!(form({ action: "computer_use", enabled: "false" }), f.deps)).toMatchObject({
      ok: true,
    });
    expect(parseConfig(await f.read(), "c").fermix_core?.computer_use).toEqual({ max_actions: 12, enabled: false });
    expect(await f.read()).toContain("# short tasks only");
  });

  test("a value other than true or false is refused naming the field, and config.toml is left as it was", async () => {
    const f = fixture(CONFIG);
    expect(await pluginsPage.submit!(form({ action: "computer_use", enabled: "yes" }), f.deps)).toEqual({
      ok: false,
      error: 'enabled: must be "true" or "false"',
    });
    expect(await f.read()).toBe(CONFIG);
  });

  test("a config.toml that does not load: the switch refuses with the file's error and writes nothing", async () => {
    const bad = "[fermix_core.computer_use]\ndisplay_width_px = 4000\n";
    const f = fixture(bad);
    const r = await pluginsPage.submit!(form({ action: "computer_use", enabled: "true" }), f.deps);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain("display_width_px");
    expect(await f.read()).toBe(bad);
  });
});
