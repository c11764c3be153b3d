/**
 * What a file is, from its first bytes (the signatures the formats define), never from its name: a `.png` that is
 * really a JPEG is sent as a JPEG, and a renamed text file is refused instead of reaching a vision API as garbage.
 * Only the types `fermix ask --attach` takes are known; anything else is undefined.
 */
export function sniffAttachmentType(bytes: Uint8Array): AttachmentType | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0x89 && ascii(1, 8) === "PNG\r\n\x1a\n") return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  // PDF 1.7 (ISO 32000) allows the header anywhere in the first 1024 bytes; writers put it first in practice.
  if (ascii(0, 1024).includes("%PDF-")) return "application/pdf";
  return undefined;
}

export type AttachmentType = "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "application/pdf";
