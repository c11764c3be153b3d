/**
 * What the vision APIs check about inline images before any model sees them: the declared type is one of the
 * four they decode, the base64 decodes, and the bytes really are that kind of picture.
 */
export const VISION_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The type the bytes' signature says, or undefined when they are no picture the APIs decode. */
export function sniffImage(base64: string): string | undefined {
  if (!base64 || base64.length % 4 !== 0 || !BASE64.test(base64)) return undefined;
  const b = Buffer.from(base64.slice(0, 24), "base64");
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b.subarray(0, 3).toString("latin1") === "GIF") return "image/gif";
  if (b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") {
    return "image/webp";
  }
  return undefined;
}

export function isBase64(value: string): boolean {
  return value.length % 4 === 0 && BASE64.test(value);
}

/** `data:<mime>;base64,<data>` split, or undefined when the value is not a base64 data URL. */
export function parseDataUrl(url: string): { mime: string; data: string } | undefined {
  const m = /^data:([^;,]*);base64,(.*)$/s.exec(url);
  return m ? { mime: m[1]!.toLowerCase(), data: m[2]! } : undefined;
}

/**
 * OpenAI's checks of an image_url value, in its wording (Responses and Chat Completions share them; only the
 * prefix naming the parameter differs). Null when the value would be accepted.
 */
export function openAiImageUrlProblem(
  url: unknown,
  param: string,
  prefix: string,
): { message: string; code: string } | null {
  if (typeof url !== "string") {
    return {
      message: `Invalid type for '${param}': expected a string, but got ${typeof url} instead.`,
      code: "invalid_type",
    };
  }
  if (/^https?:\/\//i.test(url)) return null;
  const expected = `Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got`;
  const parsed = parseDataUrl(url);
  if (!url.startsWith("data:")) {
    return { message: `${prefix} ${expected} a value without the 'data:' prefix.`, code: "invalid_value" };
  }
  if (!parsed?.mime.startsWith("image/")) {
    return { message: `${prefix} ${expected} an invalid value.`, code: "invalid_value" };
  }
  if (!parsed.data) return { message: `${prefix} ${expected} empty base64-encoded bytes.`, code: "invalid_value" };
  if (!isBase64(parsed.data)) {
    return { message: `${prefix} ${expected} an invalid base64-encoded value.`, code: "invalid_value" };
  }
  if (!(VISION_TYPES as readonly string[]).includes(parsed.mime) || !sniffImage(parsed.data)) {
    return {
      message:
        "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
      code: "invalid_image_format",
    };
  }
  return null;
}
