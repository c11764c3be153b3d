import { concatBytes } from "../runtime/bytes.ts";
import { nodeModule } from "../runtime/host.ts";
import type { RawImage } from "./driver-contract.ts";

/**
 * PNG → RGBA, for the browser driver: Chromium hands screenshots over as PNG, and the tool scales and crops RGBA
 * (the same path as an X screenshot). Only what a screenshot can be: 8-bit greyscale, grey+alpha, RGB or RGBA,
 * not interlaced, with any of the five row filters. Anything else is refused by name, never guessed at.
 */
export function decodePng(png: Uint8Array): RawImage {
  if (png.length < 8 || !SIGNATURE.every((b, i) => png[i] === b)) throw new Error("decodePng: not a PNG");
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      channels = CHANNELS[colour!] ?? 0;
      if (depth !== 8 || !channels || interlace !== 0)
        throw new Error(`decodePng: bit depth ${depth}, colour type ${colour}, interlace ${interlace} not supported`);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    at += 12 + length;
  }
  if (!width || !height) throw new Error("decodePng: no IHDR chunk");
  const raw = nodeModule<typeof import("node:zlib")>("node:zlib").inflateSync(concatBytes(idat));
  const stride = width * channels;
  if (raw.length < (stride + 1) * height) throw new Error("decodePng: the image data is shorter than its size says");
  const pixels = unfilter(raw, stride, height, channels);
  return { width, height, rgba: toRgba(pixels, width * height, channels) };
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Colour type → bytes per pixel at 8 bits: 0 grey, 2 RGB, 4 grey+alpha, 6 RGBA (3, palette, is not a screenshot). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** Undoes the per-row filters (PNG spec §9): none, sub, up, average, Paeth. */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[row + x - bpp]! : 0;
      const b = y > 0 ? out[prev + x]! : 0;
      const c = x >= bpp && y > 0 ? out[prev + x - bpp]! : 0;
      const value = raw[src + x]!;
      if (filter === 0) out[row + x] = value;
      else if (filter === 1) out[row + x] = value + a;
      else if (filter === 2) out[row + x] = value + b;
      else if (filter === 3) out[row + x] = value + ((a + b) >> 1);
      else if (filter === 4) out[row + x] = value + paeth(a, b, c);
      else throw new Error(`decodePng: unknown row filter ${filter}`);
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function toRgba(pixels: Uint8Array, count: number, channels: number): Uint8Array {
  if (channels === 4) return pixels;
  const out = new Uint8Array(count * 4);
  for (let i = 0; i < count; i++) {
    const s = i * channels;
    const grey = channels < 3;
    out[i * 4] = pixels[s]!;
    out[i * 4 + 1] = grey ? pixels[s]! : pixels[s + 1]!;
    out[i * 4 + 2] = grey ? pixels[s]! : pixels[s + 2]!;
    out[i * 4 + 3] = channels === 2 ? pixels[s + 1]! : channels === 4 ? pixels[s + 3]! : 255;
  }
  return out;
}
