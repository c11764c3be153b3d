import type { DesktopDriver, OpenDriver } from "../../src/computer-use/driver-contract.ts";

/**
 * A desktop that only has a size, for what asks whether a display can be driven (doctor, the Computer Use card,
 * `fermix capabilities`): readiness opens it, reads the size and closes it; any action on it is a test failure.
 * Each open is recorded in `opened` (the display asked for).
 */
export function sizedDesktop(width: number, height: number, opened: string[] = []): OpenDriver {
  return async (display) => {
    opened.push(display);
    const never = () => Promise.reject(new Error("readiness never acts on the desktop"));
    const driver: DesktopDriver = {
      width,
      height,
      capture: never,
      moveMouse: never,
      click: never,
      drag: never,
      scroll: never,
      typeText: never,
      pressKeys: never,
      windowAt: never,
      close: async () => {},
    };
    return driver;
  };
}
