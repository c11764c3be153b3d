import { describe, expect, test } from "bun:test";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * Issue 29: [fermix_core.computer_use] as the compiled binary reads it before a daemon starts (`fermix check-config`,
 * what `fermix upgrade` asks the new binary): a wrong type and an out-of-range screen size are refused with the key
 * named and the range said, and a good section is accepted.
 */

async function checkConfig(toml: string) {
  await using h = tempHome();
  h.writeConfig(toml);
  return await runFermix(["check-config"], { env: { FERMIX_HOME: h.home, HOME: h.userHome } });
}

describe("fermix check-config: [fermix_core.computer_use]", () => {
  test("a wrong type is refused with the table and key named", async () => {
    const r = await checkConfig('[fermix_core.computer_use]\nenabled = "yes"\n');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("[fermix_core.computer_use] enabled");
  });

  test("an out-of-range display_width_px is refused with the key and the range named", async () => {
    const r = await checkConfig("[fermix_core.computer_use]\nenabled = true\ndisplay_width_px = 4000\n");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("[fermix_core.computer_use] display_width_px");
    expect(r.stderr).toContain("320 to 1366");
  });

  test("a mode that is neither browser nor host names the choices", async () => {
    const r = await checkConfig('[fermix_core.computer_use]\nmode = "cloud"\n');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("[fermix_core.computer_use] mode");
    expect(r.stderr).toContain('"browser" or "host"');
  });

  test("every key within range: the daemon would start", async () => {
    const r = await checkConfig(
      [
        "[fermix_core.computer_use]",
        "enabled = true",
        'mode = "host"',
        "display = 99",
        "display_width_px = 1024",
        "display_height_px = 768",
        'allowed_apps = ["xterm"]',
        "max_actions = 10",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});
