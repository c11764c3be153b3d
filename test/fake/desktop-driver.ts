import type { DesktopDriver, RawImage, WindowInfo } from "../../src/computer-use/driver-contract.ts";

export type DriverCall = { op: string; args: unknown[] };

/**
 * An in-memory desktop for the computer_use tool's unit tests: a screen of a given size whose pixels are a
 * gradient, windows placed by rectangle (the last listed is on top), and every input call recorded in order.
 */
export function fakeDesktop(opts: {
  width?: number;
  height?: number;
  windows?: Array<{ x: number; y: number; width: number; height: number; info: WindowInfo }>;
  focused?: WindowInfo;
}) {
  const width = opts.width ?? 1600;
  const height = opts.height ?? 1000;
  const calls: DriverCall[] = [];
  const windows = opts.windows ?? [];
  const record = (op: string, ...args: unknown[]) => {
    calls.push({ op, args });
  };
  const image = (w: number, h: number): RawImage => {
    const rgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      rgba[i * 4] = i % 256;
      rgba[i * 4 + 3] = 255;
    }
    return { width: w, height: h, rgba };
  };
  const driver: DesktopDriver = {
    width,
    height,
    async capture(region) {
      record("capture", region);
      return region ? image(region.width, region.height) : image(width, height);
    },
    moveMouse: async (x, y) => record("moveMouse", x, y),
    click: async (button, count) => record("click", button, count),
    drag: async (...args) => record("drag", ...args),
    scroll: async (direction, amount) => record("scroll", direction, amount),
    typeText: async (text) => record("typeText", text),
    pressKeys: async (combo) => record("pressKeys", combo),
    async windowAt(x, y) {
      if (x === undefined || y === undefined) return opts.focused;
      const hit = windows.findLast((w) => x >= w.x && y >= w.y && x < w.x + w.width && y < w.y + w.height);
      return hit?.info;
    },
    close: async () => record("close"),
  };
  /** The input calls only (what reached the screen), without captures. */
  const inputs = () => calls.filter((c) => c.op !== "capture" && c.op !== "close");
  return { driver, calls, inputs };
}

/** The width and height a PNG's IHDR chunk declares. */
export function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.toString("latin1", 1, 4) !== "PNG") throw new Error("not a PNG");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
