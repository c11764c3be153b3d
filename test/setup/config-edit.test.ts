import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { applySetup, type SetupChanges, writeSetup } from "../../src/setup/config-edit.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const FILE = "/h/config.toml";
const CHANGES: SetupChanges = {
  provider: "anthropic",
  model: "claude-sonnet-4-6",
  keyring: true,
  agentName: "Jarvis",
  userName: "Ada",
  timezone: "Europe/Paris",
};

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

describe("setup's edit of config.toml", () => {
  test("a first run writes a commented file with the provider, the names and the zone", () => {
    expect(applySetup("", CHANGES, FILE)).toBe(
      [
        "# fermix configuration, written by `fermix setup`. Edit freely: setup keeps comments and other keys.",
        "",
        "[fermix_core.providers.anthropic]",
        "primary = true",
        'default_model = "claude-sonnet-4-6"',
        'api_key = "@keyring"',
        "",
        "[fermix_core.agent]",
        'name = "Jarvis"',
        "",
        "[fermix_core.personalization]",
        'user_name = "Ada"',
        'timezone = "Europe/Paris"',
        "",
      ].join("\n"),
    );
  });

  test("the owner's comments and keys stay; the old primary keeps its settings as a fallback; values already right are not rewritten", () => {
    const before = [
      "# my fermix",
      "[fermix_core]",
      'secret_store = "file"  # no keyring on this box',
      "",
      "[fermix_core.providers.openai]",
      "primary = true # was the main one",
      'api_key = "$OPENAI_API_KEY"',
      "",
      "[fermix_core.providers.anthropic]",
      "default_model = 'claude-sonnet-4-6'   # single quotes are kept",
      "",
      "[fermix_core.personalization]",
      'communication_style = "brief"',
      "",
      "[sandbox]",
      'mode = "strict"',
      "",
    ].join("\n");
    expect(applySetup(before, CHANGES, FILE)).toBe(
      [
        "# my fermix",
        "[fermix_core]",
        'secret_store = "file"  # no keyring on this box',
        "",
        "[fermix_core.providers.openai]",
        "primary = false # was the main one",
        'api_key = "$OPENAI_API_KEY"',
        "",
        "[fermix_core.providers.anthropic]",
        "default_model = 'claude-sonnet-4-6'   # single quotes are kept",
        "primary = true",
        'api_key = "@keyring"',
        "",
        "[fermix_core.personalization]",
        'communication_style = "brief"',
        'user_name = "Ada"',
        'timezone = "Europe/Paris"',
        "",
        "[sandbox]",
        'mode = "strict"',
        "",
        "[fermix_core.agent]",
        'name = "Jarvis"',
        "",
      ].join("\n"),
    );
  });

  test("the same answers again leave the text as it is, byte for byte", () => {
    const once = applySetup("# mine\n", CHANGES, FILE);
    expect(applySetup(once, CHANGES, FILE)).toBe(once);
    // no new key this time: the reference that is there stays
    expect(applySetup(once, { ...CHANGES, keyring: false }, FILE)).toBe(once);
  });

  test("a table written as dotted keys is refused rather than edited next to", () => {
    const text = '[fermix_core]\nagent.name = "x"\n';
    expect(() => applySetup(text, CHANGES, FILE)).toThrow(
      '/h/config.toml: [fermix_core.agent] is also written as "fermix_core.agent.name" (dotted keys or an inline table); edit it by hand, or move it under a [fermix_core.agent] header.',
    );
  });

  test("writeSetup creates the file 0600; an invalid file is the owner's to fix and is left as it was", () => {
    const h = home();
    const file = join(h.home, "config.toml");
    expect(writeSetup(file, CHANGES)).toEqual({ changed: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(writeSetup(file, CHANGES)).toEqual({ changed: false });

    const broken = h.writeConfig("[fermix_core.providers.openai]\nmodle = 1\n");
    expect(() => writeSetup(broken, CHANGES)).toThrow('unknown key "modle"');
    expect(readFileSync(broken, "utf8")).toBe("[fermix_core.providers.openai]\nmodle = 1\n");
    expect(existsSync(join(h.home, "secrets"))).toBe(false);
  });
});
