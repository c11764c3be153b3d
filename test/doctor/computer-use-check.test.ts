import { describe, expect, test } from "bun:test";
import type { OpenDriver } from "../../src/computer-use/driver-contract.ts";
import type { DoctorDeps } from "../../src/doctor/check.ts";
import { computerUseCheck } from "../../src/doctor/computer-use-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { sizedDesktop } from "../fake/sized-desktop.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

async function row(config: string, over: Partial<DoctorDeps> & { env?: Record<string, string> } = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(config);
  const report = await runDoctor(doctorDeps(h, over), [computerUseCheck]);
  expect(report.rows).toHaveLength(1);
  return report.rows[0]!;
}

const ON = "[fermix_core.computer_use]\nenabled = true\n";

describe("doctor: computer use", () => {
  test("not enabled: ok, off, and no display is touched", async () => {
    const opened: string[] = [];
    const got = await row("[fermix_core.computer_use]\nenabled = false\n", {
      openDesktop: sizedDesktop(1280, 800, opened),
    });
    expect(got).toEqual({ id: "computer-use", title: "computer use", status: "ok", detail: "off" });
    expect(opened).toEqual([]);
  });

  test("enabled with no DISPLAY and no display configured: a warning that says why and the fix", async () => {
    const got = await row(ON, { openDesktop: sizedDesktop(1280, 800, []) });
    expect(got.status).toBe("warn");
    expect(got.detail).toStartWith("not ready: ");
    expect(got.detail).toContain("DISPLAY");
    expect(got.fix).toBeString();
    expect(got.fix!.length).toBeGreaterThan(0);
  });

  test("enabled on a reachable display: ready, naming the display and the screen's size", async () => {
    const opened: string[] = [];
    const got = await row(ON, { env: { DISPLAY: ":7" }, openDesktop: sizedDesktop(1024, 768, opened) });
    expect(got).toEqual({
      id: "computer-use",
      title: "computer use",
      status: "ok",
      detail: "ready (display :7, 1024×768 screen)",
    });
    expect(opened).toEqual([":7"]);
  });

  test("[fermix_core.computer_use] display wins over the daemon's DISPLAY", async () => {
    const opened: string[] = [];
    const got = await row(`${ON}display = 42\n`, {
      env: { DISPLAY: ":7" },
      openDesktop: sizedDesktop(1280, 800, opened),
    });
    expect(got.detail).toBe("ready (display :42, 1280×800 screen)");
    expect(opened).toEqual([":42"]);
  });

  test("on macOS: not ready, this build has no driver there", async () => {
    const got = await row(ON, { platform: "darwin", env: { DISPLAY: ":0" }, openDesktop: sizedDesktop(1280, 800, []) });
    expect(got.status).toBe("warn");
    expect(got.detail).toMatch(/macOS/);
  });

  test("a display that cannot be opened: not ready, with the driver's reason", async () => {
    const refuse: OpenDriver = async (display) => {
      throw new Error(`cannot open display ${display}`);
    };
    const got = await row(ON, { env: { DISPLAY: ":9" }, openDesktop: refuse });
    expect(got.status).toBe("warn");
    expect(got.detail).toContain(":9");
    expect(got.fix).toBeString();
  });

  test("a config.toml that does not load: not checked", async () => {
    const got = await row("[fermix_core.computer_use]\nenabled = 1\n");
    expect(got).toMatchObject({ id: "computer-use", status: "warn", detail: "not checked: config.toml did not load" });
  });
});
