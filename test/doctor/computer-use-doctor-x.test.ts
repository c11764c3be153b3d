import { describe, expect, test } from "bun:test";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { hasXvfb, startXvfb } from "../fixture/xvfb.ts";

/*
 * The compiled binary's `fermix doctor` and `fermix capabilities` on a real X server (Xvfb): ready names the display
 * and the real screen's size; with no DISPLAY and no display key, the row says why and what to set. Skipped where
 * Xvfb and xterm are not installed (CI installs them from Debian).
 */

const defer = cleanupAfterEach();
const ON = "[fermix_core.computer_use]\nenabled = true\n";

async function computerUse(config: string, env: Record<string, string> = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(config);
  const run = { env: { FERMIX_HOME: h.home, HOME: h.userHome, ...env } };
  const doctor = await runFermix(["doctor", "--json"], run);
  const rows = JSON.parse(doctor.stdout).result.rows as Array<Record<string, string>>;
  const caps = await runFermix(["capabilities", "--json", "--kind", "builtin"], run);
  const listed = (JSON.parse(caps.stdout).result.capabilities as Array<Record<string, string>>).find(
    (r) => r.name === "computer_use",
  );
  return { row: rows.find((r) => r.id === "computer-use"), state: listed?.state };
}

describe.skipIf(!hasXvfb)("fermix doctor and capabilities: computer use on a real X display", () => {
  test("Xvfb reachable through DISPLAY: ready, with the display and the screen's real size", async () => {
    const x = await startXvfb({ width: 1024, height: 768 });
    defer(() => x.stop());
    const got = await computerUse(ON, { DISPLAY: x.display });
    const ready = `ready (display ${x.display}, 1024×768 screen)`;
    expect(got.row).toEqual({ id: "computer-use", title: "computer use", status: "ok", detail: ready });
    expect(got.state).toBe(ready);
  }, 60_000);

  test("the display named in config.toml, no DISPLAY in the daemon's environment: ready on that display", async () => {
    const x = await startXvfb();
    defer(() => x.stop());
    const got = await computerUse(`${ON}display = ${x.number}\n`);
    expect(got.row?.detail).toBe(`ready (display ${x.display}, 1280×800 screen)`);
  }, 60_000);

  test("no DISPLAY and no display key: not ready, why, and the key to set", async () => {
    const got = await computerUse(ON);
    expect(got.row).toMatchObject({ id: "computer-use", status: "warn" });
    expect(got.row?.detail).toStartWith("not ready: ");
    expect(got.row?.detail).toContain("DISPLAY is not set");
    expect(got.row?.fix).toContain("[fermix_core.computer_use]");
    expect(got.state).toStartWith("not ready: ");
  }, 60_000);

  test("a display number nothing serves: not ready, with the fix to start an X server there", async () => {
    const got = await computerUse(`${ON}display = 1999\n`);
    expect(got.row).toMatchObject({ id: "computer-use", status: "warn" });
    expect(got.row?.detail).toContain(":1999");
    expect(got.row?.fix).toContain("start an X server on :1999");
  }, 60_000);
});
