import { describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { crc32, encodePng } from "../../src/computer-use/png.ts";
import { decodePng } from "../../src/computer-use/png-decode.ts";

/** A PNG by hand: `rows` already filtered (each starts with its filter byte), colour type and size as given. */
function png(width: number, height: number, colour: number, rows: number[][]): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "latin1");
    Buffer.from(data).copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = colour;
  const idat = deflateSync(Uint8Array.from(rows.flat()));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    // Split across two IDAT chunks, as encoders may.
    chunk("IDAT", idat.subarray(0, 5)),
    chunk("IDAT", idat.subarray(5)),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

describe("decodePng", () => {
  test("round-trips what encodePng wrote", () => {
    const rgba = Uint8Array.from({ length: 7 * 3 * 4 }, (_, i) => (i * 37) % 256);
    const back = decodePng(encodePng({ width: 7, height: 3, rgba }));
    expect(back).toEqual({ width: 7, height: 3, rgba });
  });

  test("undoes each of the five row filters (RGB, two pixels a row)", () => {
    // The picture: row 0 = (10,20,30) (40,50,60); rows 1–4 each row 0 plus (1,1,1) per row index.
    const want = [0, 1, 2, 3, 4].map((r) => [10 + r, 20 + r, 30 + r, 40 + r, 50 + r, 60 + r]);
    const sub = (row: number[]) => row.map((v, i) => (i >= 3 ? (v - row[i - 3]! + 256) % 256 : v));
    const up = (row: number[], prev: number[]) => row.map((v, i) => (v - prev[i]! + 256) % 256);
    const avg = (row: number[], prev: number[]) =>
      row.map((v, i) => (v - (((i >= 3 ? row[i - 3]! : 0) + prev[i]!) >> 1) + 256) % 256);
    const paeth = (row: number[], prev: number[]) =>
      row.map((v, i) => {
        const a = i >= 3 ? row[i - 3]! : 0;
        const b = prev[i]!;
        const c = i >= 3 ? prev[i - 3]! : 0;
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        const pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        return (v - pred + 256) % 256;
      });
    const rows = [
      [0, ...want[0]!],
      [1, ...sub(want[1]!)],
      [2, ...up(want[2]!, want[1]!)],
      [3, ...avg(want[3]!, want[2]!)],
      [4, ...paeth(want[4]!, want[3]!)],
    ];
    const image = decodePng(png(2, 5, 2, rows));
    expect(image.width).toBe(2);
    expect(image.height).toBe(5);
    const rgb = [...image.rgba].filter((_, i) => i % 4 !== 3);
    expect(rgb).toEqual(want.flat());
    expect([...image.rgba].filter((_, i) => i % 4 === 3)).toEqual(Array(10).fill(255));
  });

  test("greyscale and grey+alpha become RGBA", () => {
    expect([...decodePng(png(1, 1, 0, [[0, 77]])).rgba]).toEqual([77, 77, 77, 255]);
    expect([...decodePng(png(1, 1, 4, [[0, 77, 9]])).rgba]).toEqual([77, 77, 77, 9]);
  });

  test("refuses what a screenshot never is, by name", () => {
    expect(() => decodePng(new Uint8Array([1, 2, 3]))).toThrow("not a PNG");
    expect(() => decodePng(png(1, 1, 3, [[0, 0]]))).toThrow("colour type 3");
    expect(() => decodePng(png(1, 1, 2, [[9, 1, 2, 3]]))).toThrow("unknown row filter 9");
  });
});
