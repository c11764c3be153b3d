/**
 * driverReadiness: what doctor, the setup card and `capabilities` say about computer use — ready only after a real
 * connection, otherwise the reason and the one fix, for each way a machine can fall short.
 */
import { describe, expect, test } from "bun:test";
import type { DesktopDriver, OpenDriver } from "../../src/computer-use/driver-contract.ts";
import { driverReadiness } from "../../src/computer-use/readiness.ts";
import { NoXTest } from "../../src/computer-use/x11/x11-errors.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { hasXvfb, startXvfb } from "../fixture/xvfb.ts";

const defer = cleanupAfterEach();
const neverOpened: OpenDriver = async () => {
  throw new Error("readiness must not try a display here");
};

describe("computer use readiness", () => {
  test("macOS: no driver in this build, and where computer use runs", async () => {
    const r = await driverReadiness({ env: { DISPLAY: ":0" }, platform: "darwin", open: neverOpened });
    expect(r).toEqual({
      state: "unavailable",
      reason: "this build has no macOS driver",
      fix: expect.stringContaining("Linux x86_64"),
    });
  });

  test("no DISPLAY and no display key: says so, and how to name one", async () => {
    const r = await driverReadiness({ env: {}, platform: "linux", open: neverOpened });
    expect(r.state).toBe("unavailable");
    if (r.state !== "unavailable") return;
    expect(r.reason).toBe("no X display: DISPLAY is not set and [fermix_core.computer_use] has no display");
    expect(r.fix).toContain("display = N");
  });

  test("a Wayland session without XWayland: names Wayland and XWayland", async () => {
    const r = await driverReadiness({
      env: { XDG_SESSION_TYPE: "wayland", WAYLAND_DISPLAY: "wayland-0" },
      platform: "linux",
      open: neverOpened,
    });
    expect(r.state).toBe("unavailable");
    if (r.state !== "unavailable") return;
    expect(r.reason).toContain("Wayland");
    expect(r.fix).toContain("XWayland");
  });

  test("no XTest on the server: the reason is the driver's, the fix names the extension", async () => {
    const open: OpenDriver = async (display) => {
      throw NoXTest(`the X display ${display} has no XTest extension`, { display });
    };
    const r = await driverReadiness({ env: {}, display: 5, platform: "linux", open });
    expect(r).toEqual({
      state: "unavailable",
      reason: "the X display :5 has no XTest extension",
      fix: expect.stringContaining("XTEST"),
    });
  });

  test("a display nobody serves: the connection's reason, and the fix", async () => {
    const r = await driverReadiness({ env: { DISPLAY: ":159" }, platform: "linux" });
    expect(r.state).toBe("unavailable");
    if (r.state !== "unavailable") return;
    expect(r.reason).toContain("cannot connect to the X display :159");
    expect(r.fix).toContain("start an X server on :159");
  });

  test("the display key wins over DISPLAY, and a driver that opens is ready with the screen's size", async () => {
    const opened: string[] = [];
    let closed = false;
    const open: OpenDriver = async (display) => {
      opened.push(display);
      const close = async () => {
        closed = true;
      };
      return { width: 1920, height: 1080, close } as DesktopDriver;
    };
    const r = await driverReadiness({ env: { DISPLAY: ":0" }, display: 7, platform: "linux", open });
    expect(r).toEqual({ state: "ready", display: ":7", width: 1920, height: 1080 });
    expect(opened).toEqual([":7"]);
    expect(closed).toBe(true);
  });

  test.skipIf(!hasXvfb)("a real Xvfb through the X11 driver: ready at 1280×800", async () => {
    const x = await startXvfb();
    defer(() => x.stop());
    const r = await driverReadiness({ env: { DISPLAY: x.display }, platform: "linux" });
    expect(r).toEqual({ state: "ready", display: x.display, width: 1280, height: 800 });
  });
});
