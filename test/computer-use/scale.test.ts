import { describe, expect, test } from "bun:test";
import type { RawImage } from "../../src/computer-use/driver-contract.ts";
import { crop, resize } from "../../src/computer-use/scale.ts";

/** A grey image from one value per pixel (alpha 255). */
function grey(width: number, height: number, values: number[]): RawImage {
  const rgba = new Uint8Array(width * height * 4);
  values.forEach((v, i) => {
    rgba.set([v, v, v, 255], i * 4);
  });
  return { width, height, rgba };
}
const values = (img: RawImage) => Array.from({ length: img.width * img.height }, (_, i) => img.rgba[i * 4]!);

describe("resize and crop", () => {
  test("halving averages each 2×2 block", () => {
    const img = grey(4, 2, [0, 100, 200, 200, 100, 200, 0, 40]);
    expect(values(resize(img, 2, 1))).toEqual([100, 110]);
  });

  test("a non-integer ratio weights the source pixels by how much of each an output pixel covers", () => {
    // 3 → 2: the first output pixel covers source 0 fully and half of source 1.
    const img = grey(3, 1, [0, 90, 180]);
    expect(values(resize(img, 2, 1))).toEqual([30, 150]);
  });

  test("a screen-sized downscale keeps the size asked for and flat colour flat", () => {
    const img = { width: 1920, height: 1080, rgba: new Uint8Array(1920 * 1080 * 4).fill(77) };
    const started = performance.now();
    const out = resize(img, 1280, 800);
    const ms = performance.now() - started;
    expect([out.width, out.height, out.rgba.length]).toEqual([1280, 800, 1280 * 800 * 4]);
    expect(out.rgba.every((v) => v === 77)).toBe(true);
    expect(ms).toBeLessThan(5_000); // a safety net; typically well under 200 ms
  });

  test("enlarging interpolates between pixel centres (bilinear), edges held", () => {
    const img = grey(2, 1, [0, 200]);
    expect(values(resize(img, 4, 1))).toEqual([0, 50, 150, 200]);
  });

  test("the same size is a copy, not the same buffer", () => {
    const img = grey(2, 1, [1, 2]);
    const out = resize(img, 2, 1);
    expect(values(out)).toEqual([1, 2]);
    expect(out.rgba).not.toBe(img.rgba);
  });

  test("a size that is no size is refused", () => {
    expect(() => resize(grey(1, 1, [0]), 0, 5)).toThrow("0×5 is no image size");
  });

  test("crop takes the rectangle, clamped to the image", () => {
    const img = grey(3, 3, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(values(crop(img, { x: 1, y: 1, width: 2, height: 2 }))).toEqual([5, 6, 8, 9]);
    const edge = crop(img, { x: 2, y: 0, width: 5, height: 2 });
    expect([edge.width, edge.height, ...values(edge)]).toEqual([1, 2, 3, 6]);
  });
});
