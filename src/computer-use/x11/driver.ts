import type { DesktopDriver, MouseButton, OpenDriver } from "../driver-contract.ts";
import { connectX11, type X11Connection } from "./connection.ts";
import { createKeyboard } from "./keyboard.ts";
import { createWindowLookup } from "./windows.ts";
import { zpixmapToRgba } from "./zpixmap.ts";

/*
 * The X11 desktop driver, inside the single binary: the npm `x11` package speaks the X protocol in pure
 * JavaScript (GetImage for screenshots, XTest FakeInput for input, WM_CLASS/_NET_WM_NAME for windows), so nothing
 * beyond an X server is needed — no xdotool, no ImageMagick, no native addon, nothing for CI to install but Xvfb.
 * It runs unchanged under Bun and in the compiled binary (test/computer-use/x11/compiled.test.ts). Measured on
 * Xvfb: opening ~80–200 ms (setup, XTest, keyboard map), a 1280×800 screenshot 17–100 ms, a key combination one
 * round trip (~1.5 ms), typed text one round trip per call.
 */

const Z_PIXMAP = 2;
const ALL_PLANES = 0xffffffff;
const BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3 };
/** X11 reports the wheel as buttons 4–7. */
const WHEEL = { up: 4, down: 5, left: 6, right: 7 } as const;
/** Intermediate pointer positions of a drag: toolkits that start a drag on motion need to see some. */
const DRAG_STEPS = 8;

export const openX11Driver: OpenDriver = async (display) => {
  const conn = await connectX11(display);
  try {
    return await driverOn(conn);
  } catch (err) {
    await conn.close();
    throw err;
  }
};

async function driverOn(conn: X11Connection): Promise<DesktopDriver> {
  const screen = conn.info.screen[0]!;
  const { root, pixel_width: width, pixel_height: height } = screen;
  const format = conn.info.format[screen.root_depth];
  const visual = screen.depths[screen.root_depth]?.[screen.root_visual];
  if (!format || !visual) throw new Error(`the X display ${conn.display} has no pixel format for its root depth`);
  const layout = {
    bitsPerPixel: format.bits_per_pixel,
    scanlinePad: format.scanline_pad,
    byteOrder: conn.info.image_byte_order,
    redMask: visual.red_mask,
    greenMask: visual.green_mask,
    blueMask: visual.blue_mask,
  };
  const keyboard = await createKeyboard(conn);
  const windows = createWindowLookup(conn, root);
  const { xtest } = conn;
  const motion = (x: number, y: number) => xtest.FakeInput(xtest.MotionNotify, 0, 0, root, x, y);
  const button = (number: number, times: number) => {
    for (let i = 0; i < times; i++) {
      xtest.FakeInput(xtest.ButtonPress, number, 0, root, 0, 0);
      xtest.FakeInput(xtest.ButtonRelease, number, 0, root, 0, 0);
    }
  };

  return {
    width,
    height,
    async capture(region) {
      const r = clampRegion(region ?? { x: 0, y: 0, width, height }, width, height);
      const image = await conn.call<{ data: Buffer }>("GetImage", (cb) =>
        conn.x.GetImage(Z_PIXMAP, root, r.x, r.y, r.width, r.height, ALL_PLANES, cb),
      );
      return { width: r.width, height: r.height, rgba: zpixmapToRgba(image.data, r.width, r.height, layout) };
    },
    async moveMouse(x, y) {
      motion(x, y);
      await conn.sync();
    },
    async click(which, count) {
      button(BUTTONS[which], count);
      await conn.sync();
    },
    async drag(fromX, fromY, toX, toY) {
      motion(fromX, fromY);
      xtest.FakeInput(xtest.ButtonPress, BUTTONS.left, 0, root, 0, 0);
      for (let step = 1; step <= DRAG_STEPS; step++) {
        motion(
          Math.round(fromX + ((toX - fromX) * step) / DRAG_STEPS),
          Math.round(fromY + ((toY - fromY) * step) / DRAG_STEPS),
        );
      }
      xtest.FakeInput(xtest.ButtonRelease, BUTTONS.left, 0, root, 0, 0);
      await conn.sync();
    },
    async scroll(direction, amount) {
      button(WHEEL[direction], amount);
      await conn.sync();
    },
    typeText: (text) => keyboard.typeText(text),
    pressKeys: (combo) => keyboard.pressKeys(combo),
    windowAt: (x, y) => (x === undefined || y === undefined ? windows.focused() : windows.at(x, y)),
    async close() {
      await keyboard.restore().catch(() => undefined);
      await conn.close();
    },
  };
}

/** GetImage fails outright for a rectangle reaching past the screen: keep the region on it. */
function clampRegion(
  r: { x: number; y: number; width: number; height: number },
  width: number,
  height: number,
): { x: number; y: number; width: number; height: number } {
  const x = Math.min(Math.max(0, Math.round(r.x)), width - 1);
  const y = Math.min(Math.max(0, Math.round(r.y)), height - 1);
  return {
    x,
    y,
    width: Math.max(1, Math.min(Math.round(r.width), width - x)),
    height: Math.max(1, Math.min(Math.round(r.height), height - y)),
  };
}
