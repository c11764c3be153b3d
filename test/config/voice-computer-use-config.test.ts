import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { imageSettings } from "../../src/media/image-backends/image-settings.ts";

/*
 * Issue 27, item 2: every section and key the spec and the facts list for the voice companion, computer use, the
 * Codex image backend's router_model and the harness's cloud rail loads, with its type and range checked.
 */

const FILE = "/home/u/.fermix/config.toml";

/** Every key of [fermix_core.realtime] and [fermix_core.computer_use], router_model and cloud_enabled. */
const EVERY_KEY = `
[fermix_core.realtime]
enabled = true
screen_share = false
provider = "openai"
model = "gpt-realtime"

[fermix_core.computer_use]
enabled = true
mode = "host"
display = 0
display_width_px = 1280
display_height_px = 800
allowed_apps = ["Safari", "Finder"]
allowed_domains = ["example.com"]
confirm_consequential = true
screenshot_after = true
max_actions = 40
max_retained_screenshots = 3
approval_timeout_ms = 300000

[fermix_core.tools.generate_image]
backend = "openai_codex"
router_model = "gpt-5.5"

[fermix_core.harness]
cloud_enabled = true
`;

function errorOf(toml: string): string {
  try {
    parseConfig(toml, FILE);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`expected the config to be rejected:\n${toml}`);
}

describe("the spec's voice, computer-use, router_model and cloud_enabled keys", () => {
  test("a config.toml with every one of them loads, values as written", () => {
    const core = parseConfig(EVERY_KEY, FILE).fermix_core;
    expect(core?.realtime).toEqual({ enabled: true, screen_share: false, provider: "openai", model: "gpt-realtime" });
    expect(core?.computer_use).toMatchObject({
      mode: "host",
      display_width_px: 1280,
      display_height_px: 800,
      allowed_apps: ["Safari", "Finder"],
      max_actions: 40,
      approval_timeout_ms: 300000,
    });
    expect(core?.tools?.generate_image?.router_model).toBe("gpt-5.5");
    expect(core?.harness?.cloud_enabled).toBe(true);
  });

  test("a wrong type or a value out of range is refused with the table and key named", () => {
    const cases: Array<[string, string]> = [
      ['[fermix_core.realtime]\nenabled = "yes"\n', "[fermix_core.realtime] enabled"],
      ["[fermix_core.realtime]\nscreen_share = 1\n", "[fermix_core.realtime] screen_share"],
      ['[fermix_core.realtime]\nprovider = "anthropic"\n', "[fermix_core.realtime] provider"],
      ["[fermix_core.realtime]\nmodel = 4\n", "[fermix_core.realtime] model"],
      ["[fermix_core.computer_use]\nenabled = 1\n", "[fermix_core.computer_use] enabled"],
      ['[fermix_core.computer_use]\nmode = "cloud"\n', "[fermix_core.computer_use] mode"],
      ["[fermix_core.computer_use]\ndisplay = -1\n", "[fermix_core.computer_use] display"],
      ["[fermix_core.computer_use]\ndisplay_width_px = 2000\n", "[fermix_core.computer_use] display_width_px"],
      ["[fermix_core.computer_use]\ndisplay_height_px = 200\n", "[fermix_core.computer_use] display_height_px"],
      ['[fermix_core.computer_use]\nallowed_apps = "Safari"\n', "[fermix_core.computer_use] allowed_apps"],
      ["[fermix_core.computer_use]\nallowed_domains = [1]\n", "[fermix_core.computer_use.allowed_domains] 0"],
      [
        '[fermix_core.computer_use]\nconfirm_consequential = "no"\n',
        "[fermix_core.computer_use] confirm_consequential",
      ],
      ['[fermix_core.computer_use]\nscreenshot_after = "no"\n', "[fermix_core.computer_use] screenshot_after"],
      ["[fermix_core.computer_use]\nmax_actions = 0\n", "[fermix_core.computer_use] max_actions"],
      [
        "[fermix_core.computer_use]\nmax_retained_screenshots = 1.5\n",
        "[fermix_core.computer_use] max_retained_screenshots",
      ],
      ['[fermix_core.computer_use]\napproval_timeout_ms = "5m"\n', "[fermix_core.computer_use] approval_timeout_ms"],
      ["[fermix_core.tools.generate_image]\nrouter_model = 5\n", "[fermix_core.tools.generate_image] router_model"],
      ['[fermix_core.harness]\ncloud_enabled = "true"\n', "[fermix_core.harness] cloud_enabled"],
    ];
    for (const [toml, named] of cases) expect(errorOf(toml)).toContain(named);
    expect(errorOf("[fermix_core.computer_use]\ndisplay_width_px = 2000\n")).toContain("320 to 1366");
  });

  test("an unknown key in either new table still fails loudly", () => {
    expect(errorOf('[fermix_core.realtime]\nvoice = "alloy"\n')).toContain(
      '[fermix_core.realtime] unknown key "voice"',
    );
    expect(errorOf("[fermix_core.computer_use]\nmax_action = 4\n")).toContain(
      '[fermix_core.computer_use] unknown key "max_action"',
    );
  });

  test("openai_codex draws with router_model, else model, else its default; other backends keep model", () => {
    const codex = (keys: string) =>
      imageSettings(parseConfig(`[fermix_core.tools.generate_image]\nbackend = "openai_codex"\n${keys}`, FILE))?.model;
    expect(codex('router_model = "gpt-5.5"\nmodel = "gpt-5.4"\n')).toBe("gpt-5.5");
    expect(codex('model = "gpt-5.4"\n')).toBe("gpt-5.4");
    expect(codex("")).toBe("gpt-5.6-terra");
    const openai = parseConfig(
      '[fermix_core.tools.generate_image]\nbackend = "openai"\nmodel = "gpt-image-2"\nrouter_model = "gpt-5.5"\n',
      FILE,
    );
    expect(imageSettings(openai)?.model).toBe("gpt-image-2");
  });
});
