import { type ImageBytes, ImageFailed, type ImageHttp, type ImageTarget } from "./image-types.ts";

/**
 * One POST to an image service, its JSON answer parsed. A refusal becomes ImageFailed carrying the service's own
 * message (OpenAI and Google `error.message`, xAI `error`), with the key cut out should a service echo it.
 */
export async function postImageRequest(
  backend: string,
  url: string,
  init: { headers: Record<string, string>; body: string | Uint8Array },
  target: ImageTarget,
  http: ImageHttp,
): Promise<any> {
  let answer: { status: number; text: string };
  try {
    answer = await http(url, init);
  } catch (err) {
    throw ImageFailed(scrub(`${backend} could not be reached: ${(err as Error).message}`, target.apiKey), { backend });
  }
  let body: any;
  try {
    body = answer.text ? JSON.parse(answer.text) : undefined;
  } catch {
    body = undefined;
  }
  if (answer.status < 200 || answer.status > 299) {
    const said = vendorMessage(body, answer.text);
    throw ImageFailed(scrub(`${backend} refused the request (HTTP ${answer.status}): ${said}`, target.apiKey), {
      backend,
      status: answer.status,
    });
  }
  if (body === undefined) throw ImageFailed(`${backend} answered with something that is not JSON`, { backend });
  return body;
}

function vendorMessage(body: any, text: string): string {
  const message = body?.error?.message ?? (typeof body?.error === "string" ? body.error : undefined);
  return typeof message === "string" && message ? message : text.slice(0, 300) || "no details";
}

/** A service that echoed the key back must not hand it to the model or the log. */
export function scrub(text: string, key: string): string {
  return key.length >= 8 ? text.split(key).join("[key]") : text;
}

/** Base64 picture data from an answer, its type read from the bytes (services label it loosely, if at all). */
export function decodedImage(backend: string, base64: unknown): ImageBytes {
  if (typeof base64 !== "string" || !base64) throw ImageFailed(`${backend} answered without image data`, { backend });
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  const mime = imageType(bytes);
  if (!mime)
    throw ImageFailed(`${backend} answered with data that is not a PNG, JPEG, WebP or GIF picture`, { backend });
  return { bytes, mime };
}

/** The picture type a file's first bytes say, or undefined. */
export function imageType(bytes: Uint8Array): string | undefined {
  const b = bytes;
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return "image/gif";
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** `data:image/png;base64,…`: how xAI takes an input picture. */
export function dataUrl(image: ImageBytes): string {
  return `data:${image.mime};base64,${Buffer.from(image.bytes).toString("base64")}`;
}

export const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
};
