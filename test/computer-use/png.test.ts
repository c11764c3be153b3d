import { describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import { crc32, encodePng } from "../../src/computer-use/png.ts";

/** The chunks of a PNG: type, data, and whether the stored CRC matches. */
function chunks(png: Uint8Array) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: Array<{ type: string; data: Uint8Array; crcOk: boolean }> = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const data = png.subarray(at + 8, at + 8 + length);
    const crcOk = view.getUint32(at + 8 + length) === crc32(png.subarray(at + 4, at + 8 + length));
    out.push({ type, data, crcOk });
    at += 12 + length;
  }
  return out;
}

describe("PNG encoding", () => {
  test("crc32 is the standard one (check value of '123456789', and IEND's well-known CRC)", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    expect(crc32(new TextEncoder().encode("IEND"))).toBe(0xae426082);
  });

  test("signature, IHDR (size, 8-bit RGBA), IDAT rows with filter 0, IEND; every CRC valid", () => {
    // 3×2: red, green, blue / white, black, half-transparent grey
    const rgba = new Uint8Array([
      255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255, 128, 128, 128, 128,
    ]);
    const png = encodePng({ width: 3, height: 2, rgba });
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const parts = chunks(png);
    expect(parts.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    expect(parts.every((c) => c.crcOk)).toBe(true);
    const ihdr = new DataView(parts[0]!.data.buffer, parts[0]!.data.byteOffset, 13);
    expect([ihdr.getUint32(0), ihdr.getUint32(4), ihdr.getUint8(8), ihdr.getUint8(9)]).toEqual([3, 2, 8, 6]);
    const raw = inflateSync(parts[1]!.data);
    expect([...raw]).toEqual([0, ...rgba.subarray(0, 12), 0, ...rgba.subarray(12)]);
  });

  test("a screen-sized image: rows intact after inflating, a flat one a fraction of its raw size", () => {
    const rgba = new Uint8Array(1280 * 800 * 4).fill(200);
    rgba.set([1, 2, 3, 4], (799 * 1280 + 1279) * 4); // the last pixel differs
    const started = performance.now();
    const png = encodePng({ width: 1280, height: 800, rgba });
    const ms = performance.now() - started;
    const raw = inflateSync(chunks(png)[1]!.data);
    expect(raw.length).toBe(800 * (1 + 1280 * 4));
    expect([...raw.subarray(raw.length - 4)]).toEqual([1, 2, 3, 4]);
    expect(png.length).toBeLessThan(rgba.length / 50);
    expect(ms).toBeLessThan(5_000); // a safety net; typically tens of milliseconds
  });

  test("a buffer of the wrong length is refused, naming the size", () => {
    expect(() => encodePng({ width: 2, height: 2, rgba: new Uint8Array(15) })).toThrow("15 bytes is not 2×2×4");
  });
});
