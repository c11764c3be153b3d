import { concatBytes } from "../runtime/bytes.ts";
import { nodeModule } from "../runtime/host.ts";
import type { RawImage } from "./driver-contract.ts";

/**
 * RGBA → PNG (8-bit truecolour with alpha, filter "none" on every row), the format providers take as an image
 * part. Screenshots are flat UI colour, which deflate packs well without row filters; level 6 is zlib's default
 * balance — a 1280×800 desktop encodes in tens of milliseconds.
 */
export function encodePng(image: RawImage): Uint8Array {
  const { width, height, rgba } = image;
  if (rgba.length !== width * height * 4) {
    throw new Error(`encodePng: ${rgba.length} bytes is not ${width}×${height}×4`);
  }
  const rowBytes = width * 4;
  const raw = new Uint8Array((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    // Byte 0 of each row is its filter type: 0, none.
    raw.set(rgba.subarray(y * rowBytes, (y + 1) * rowBytes), y * (rowBytes + 1) + 1);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  // bytes 10–12: compression, filter method, interlace — all 0
  return concatBytes([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", zlib().deflateSync(raw, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** length, type, data, CRC-32 of type + data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

// node:zlib and the table are made on the first screenshot: at the top they would be a daemon's boot work (the
// tool's module loads with the registry) for a feature that is off unless asked for.
const zlib = () => nodeModule<typeof import("node:zlib")>("node:zlib");

let crcTable: Uint32Array | undefined;
function makeCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** The CRC-32 PNG (and zlib, gzip) use: polynomial 0xEDB88320, reflected. */
export function crc32(bytes: Uint8Array): number {
  crcTable ??= makeCrcTable();
  const table = crcTable;
  let c = 0xffffffff;
  for (const byte of bytes) c = table[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
