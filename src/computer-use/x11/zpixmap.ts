/**
 * How the server lays out a ZPixmap image of the root window: its pixel format (from the connection setup) and
 * the root visual's colour masks. A TrueColor depth-24 screen is usually 32 bits per pixel, least significant byte
 * first (B, G, R, pad), but a server may differ, so the conversion reads the masks instead of assuming.
 */
export type PixelLayout = {
  bitsPerPixel: number;
  /** Each scanline is padded to a multiple of this many bits. */
  scanlinePad: number;
  /** 0 LSBFirst, 1 MSBFirst (the server's image_byte_order). */
  byteOrder: number;
  redMask: number;
  greenMask: number;
  blueMask: number;
};

/** ZPixmap bytes → RGBA (alpha 255), row-major, width × height × 4. */
export function zpixmapToRgba(data: Uint8Array, width: number, height: number, layout: PixelLayout): Uint8Array {
  const bytesPerPixel = layout.bitsPerPixel / 8;
  if (![2, 3, 4].includes(bytesPerPixel)) {
    throw new Error(`unsupported screen format: ${layout.bitsPerPixel} bits per pixel (supported: 16, 24, 32)`);
  }
  const stride = Math.ceil((width * layout.bitsPerPixel) / layout.scanlinePad) * (layout.scanlinePad / 8);
  if (data.length < stride * (height - 1) + width * bytesPerPixel) {
    throw new Error(`the screen image is ${data.length} bytes, too short for ${width}×${height}`);
  }
  if (isCommonBgrx(layout)) return bgrxToRgba(data, width, height, stride);
  const red = channel(layout.redMask);
  const green = channel(layout.greenMask);
  const blue = channel(layout.blueMask);
  const out = new Uint8Array(width * height * 4);
  const msb = layout.byteOrder === 1;
  for (let y = 0; y < height; y++) {
    let src = y * stride;
    let dst = y * width * 4;
    for (let x = 0; x < width; x++) {
      let pixel = 0;
      for (let b = 0; b < bytesPerPixel; b++) {
        const byte = data[src + b]!;
        pixel = msb ? pixel * 256 + byte : pixel + byte * 2 ** (8 * b);
      }
      out[dst] = red(pixel);
      out[dst + 1] = green(pixel);
      out[dst + 2] = blue(pixel);
      out[dst + 3] = 255;
      src += bytesPerPixel;
      dst += 4;
    }
  }
  return out;
}

/** A mask → a function taking that channel out of a pixel, widened to 8 bits (5/6-bit channels of 16-bit screens). */
function channel(mask: number): (pixel: number) => number {
  if (mask === 0) return () => 0;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  const max = mask >>> shift;
  if (max === 255) return (pixel) => (pixel >>> shift) & 255;
  return (pixel) => Math.round((((pixel >>> shift) & max) * 255) / max);
}

/** The layout of nearly every X server today (Xorg, Xvfb, XWayland at depth 24): bytes B, G, R, pad. */
function isCommonBgrx(l: PixelLayout): boolean {
  return (
    l.bitsPerPixel === 32 &&
    l.byteOrder === 0 &&
    l.redMask === 0xff0000 &&
    l.greenMask === 0xff00 &&
    l.blueMask === 0xff
  );
}

function bgrxToRgba(data: Uint8Array, width: number, height: number, stride: number): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    let src = y * stride;
    let dst = y * width * 4;
    for (let x = 0; x < width; x++, src += 4, dst += 4) {
      out[dst] = data[src + 2]!;
      out[dst + 1] = data[src + 1]!;
      out[dst + 2] = data[src]!;
      out[dst + 3] = 255;
    }
  }
  return out;
}
