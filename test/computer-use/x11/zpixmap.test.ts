import { describe, expect, test } from "bun:test";
import { zpixmapToRgba } from "../../../src/computer-use/x11/zpixmap.ts";

const TRUECOLOR = { redMask: 0xff0000, greenMask: 0xff00, blueMask: 0xff };

describe("ZPixmap → RGBA", () => {
  test("32 bits per pixel, LSB first (B, G, R, pad): the common layout", () => {
    const data = new Uint8Array([0x30, 0x20, 0x10, 0x00, 0xff, 0xee, 0xdd, 0x99]);
    const rgba = zpixmapToRgba(data, 2, 1, { bitsPerPixel: 32, scanlinePad: 32, byteOrder: 0, ...TRUECOLOR });
    expect([...rgba]).toEqual([0x10, 0x20, 0x30, 255, 0xdd, 0xee, 0xff, 255]);
  });

  test("MSB first (pad, R, G, B), read through the masks", () => {
    const data = new Uint8Array([0x00, 0x10, 0x20, 0x30]);
    const rgba = zpixmapToRgba(data, 1, 1, { bitsPerPixel: 32, scanlinePad: 32, byteOrder: 1, ...TRUECOLOR });
    expect([...rgba]).toEqual([0x10, 0x20, 0x30, 255]);
  });

  test("16-bit 5-6-5 widens each channel to 8 bits; rows padded to 32 bits are skipped over", () => {
    // width 1 at 16 bpp: 2 bytes of pixel + 2 of padding per row. Row 0 white, row 1 pure green.
    const data = new Uint8Array([0xff, 0xff, 0xaa, 0xaa, 0xe0, 0x07, 0xaa, 0xaa]);
    const rgba = zpixmapToRgba(data, 1, 2, {
      bitsPerPixel: 16,
      scanlinePad: 32,
      byteOrder: 0,
      redMask: 0xf800,
      greenMask: 0x07e0,
      blueMask: 0x001f,
    });
    expect([...rgba]).toEqual([255, 255, 255, 255, 0, 255, 0, 255]);
  });

  test("a format it cannot read and a short buffer are refused with the reason", () => {
    const layout = { bitsPerPixel: 8, scanlinePad: 32, byteOrder: 0, ...TRUECOLOR };
    expect(() => zpixmapToRgba(new Uint8Array(4), 1, 1, layout)).toThrow("8 bits per pixel");
    expect(() => zpixmapToRgba(new Uint8Array(4), 2, 1, { ...layout, bitsPerPixel: 32 })).toThrow("too short");
  });
});
