import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import {
  disablePlugin,
  enablePlugin,
  pluginConfigValues,
  setPluginConfig,
} from "../../../src/plugins/settings/plugin-config.ts";
import { tempHome } from "../../fixture/home.ts";

/** Written by hand: comments in and around every table the edits touch, odd spacing, a multi-line list. */
const HAND_WRITTEN = `# my fermix config
[fermix_core]
profile = "general"   # keep the default

# Plugins I use.
[fermix_core.plugins]
enabled = [
  "github",   # work
  # "notion", later
]
# dev_local = "/src/fermix-plugins/plugins"

[fermix_core.plugins.slack]
# the channel the agent posts to
DEFAULT_CHANNEL = "general"   # not #random

[sandbox]
mode = "standard"   # where I run it
`;

const declared = [
  { key: "DEFAULT_CHANNEL", kind: "text" as const, required: true },
  { key: "ALLOW_WRITES", kind: "boolean" as const },
];

function setup(text?: string) {
  const h = tempHome();
  const file = text === undefined ? join(h.home, "config.toml") : h.writeConfig(text);
  return { h, file, read: () => readFileSync(file, "utf8") };
}

describe("enable and disable edit [fermix_core.plugins] enabled", () => {
  test("enable adds one line in the list's own style; everything else stays byte for byte", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    expect(enablePlugin(file, "slack")).toEqual({ file, changed: true });
    expect(read()).toBe(HAND_WRITTEN.replace(`  "github",   # work\n`, `  "github",   # work\n  "slack",\n`));
    expect(enablePlugin(file, "slack").changed).toBe(false);
    expect(parseConfig(read(), file).fermix_core?.plugins?.enabled).toEqual(["github", "slack"]);
  });

  test("disable removes the element's line; the commented-out entry and the rest stay", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    expect(disablePlugin(file, "github").changed).toBe(true);
    expect(read()).toBe(HAND_WRITTEN.replace(`  "github",   # work\n`, ""));
    expect(disablePlugin(file, "github").changed).toBe(false);
  });

  test("a missing file is created (0600) with the table; a missing key goes at the top of the table", async () => {
    const { h, file, read } = setup();
    await using _ = h;
    enablePlugin(file, "slack");
    expect(read()).toBe(`[fermix_core.plugins]\nenabled = ["slack"]\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const other = setup(`# top\n[fermix_core.plugins]\n# a note\ndev_local = []\n`);
    await using _o = other.h;
    enablePlugin(other.file, "github");
    expect(other.read()).toBe(`# top\n[fermix_core.plugins]\nenabled = ["github"]\n# a note\ndev_local = []\n`);
  });

  test("refuses bad names, dotted-key layouts and an already invalid file, leaving the file alone", async () => {
    const { h, file, read } = setup(`[fermix_core]\nplugins.enabled = ["github"] # dotted\n`);
    await using _ = h;
    expect(() => enablePlugin(file, "slack")).toThrow("edit it by hand");
    expect(() => enablePlugin(file, "Bad-Name")).toThrow("not a plugin name");
    expect(() => enablePlugin(file, "enabled")).toThrow("not a plugin name");
    expect(read()).toBe(`[fermix_core]\nplugins.enabled = ["github"] # dotted\n`);
    const broken = setup(`[fermix_core.plugins]\nenabled = "slack"\n`);
    await using _b = broken.h;
    expect(() => enablePlugin(broken.file, "slack")).toThrow(
      '[fermix_core.plugins] enabled: expected a list such as ["a", "b"]',
    );
    expect(broken.read()).toBe(`[fermix_core.plugins]\nenabled = "slack"\n`);
  });
  test("a file with only a plugin's own table gets [fermix_core.plugins] after it, which TOML allows", async () => {
    const text = `[fermix_core.plugins.slack]\nDEFAULT_CHANNEL = "ops"\n`;
    const { h, file, read } = setup(text);
    await using _ = h;
    enablePlugin(file, "slack");
    expect(read()).toBe(`${text}\n[fermix_core.plugins]\nenabled = ["slack"]\n`);
    expect(pluginConfigValues(parseConfig(read(), file), "slack")).toEqual({ DEFAULT_CHANNEL: "ops" });
  });

  test("an inline table higher up that already defines the table is refused", async () => {
    const text = `[fermix_core]\nplugins = { enabled = ["github"] }\n`;
    const { h, file, read } = setup(text);
    await using _ = h;
    expect(() => enablePlugin(file, "slack")).toThrow('also written as "fermix_core.plugins"');
    expect(() => setPluginConfig(file, "slack", "ALLOW_WRITES", "true", declared)).toThrow("edit it by hand");
    expect(read()).toBe(text);
  });
});

describe("config set edits [fermix_core.plugins.<name>]", () => {
  test("replaces a value in place, comments untouched; the key is matched without regard to case", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    const result = setPluginConfig(file, "slack", "default_channel", "ops", declared);
    expect(result).toEqual({ file, changed: true, key: "DEFAULT_CHANNEL", value: "ops" });
    expect(read()).toBe(HAND_WRITTEN.replace(`DEFAULT_CHANNEL = "general"`, `DEFAULT_CHANNEL = "ops"`));
    expect(setPluginConfig(file, "slack", "DEFAULT_CHANNEL", "ops", declared).changed).toBe(false);
  });

  test("a boolean key takes true/false only and is written as a TOML boolean at the end of the table", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    setPluginConfig(file, "slack", "ALLOW_WRITES", "true", declared);
    expect(read()).toBe(HAND_WRITTEN.replace(`not #random\n`, `not #random\nALLOW_WRITES = true\n`));
    expect(pluginConfigValues(parseConfig(read(), file), "slack")).toEqual({
      DEFAULT_CHANNEL: "general",
      ALLOW_WRITES: true,
    });
    expect(() => setPluginConfig(file, "slack", "ALLOW_WRITES", "yes", declared)).toThrow("true or false");
  });

  test("a new plugin table is appended; quotes and backslashes are escaped", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    setPluginConfig(file, "notion", "DEFAULT_CHANNEL", 'a "b" \\c', declared);
    expect(read()).toBe(`${HAND_WRITTEN}\n[fermix_core.plugins.notion]\nDEFAULT_CHANNEL = "a \\"b\\" \\\\c"\n`);
    expect(pluginConfigValues(parseConfig(read(), file), "notion").DEFAULT_CHANNEL).toBe('a "b" \\c');
  });

  test("an undeclared key is refused, naming the declared ones", async () => {
    const { h, file, read } = setup(HAND_WRITTEN);
    await using _ = h;
    expect(() => setPluginConfig(file, "slack", "TOKEN", "x", declared)).toThrow(
      "slack has no setting TOKEN; its settings are DEFAULT_CHANNEL, ALLOW_WRITES",
    );
    expect(() => setPluginConfig(file, "slack", "TOKEN", "x", [])).toThrow("it declares no settings");
    expect(read()).toBe(HAND_WRITTEN);
  });

  test("pluginConfigValues never returns the enabled list or dev_local as a plugin's table", () => {
    const config = parseConfig(HAND_WRITTEN, "config.toml");
    expect(pluginConfigValues(config, "enabled")).toEqual({});
    expect(pluginConfigValues(config, "github")).toEqual({});
  });
});
