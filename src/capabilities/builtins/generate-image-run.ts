import { basename, dirname, join } from "node:path";
import { processEnv } from "../../config/env.ts";
import { resolveHome } from "../../config/paths.ts";
import { isFermixError } from "../../error.ts";
import { randomHex } from "../../ids.ts";
import { EXTENSIONS, imageType, scrub } from "../../media/image-backends/_http.ts";
import type { ImageSettings } from "../../media/image-backends/image-settings.ts";
import type { ImageBytes, ImageHttp, ImageJob, ImageTarget } from "../../media/image-backends/image-types.ts";
import { readCapped } from "../../net/read-capped.ts";
import type { ToolContext, ToolResult } from "../tool.ts";
import { denied } from "./_paths.ts";
import { type Args, type GenerateImageDeps, IMAGE_TIMEOUT_MS, INBOUND_LAST } from "./generate-image-params.ts";

/**
 * A 4K PNG is tens of MB once base64-encoded in JSON. Past this the read stops (the door's cap, or readCapped on
 * an owner's root) and the call fails unparsed, as ImageFailed "the answer was over 96 MB".
 */
const MAX_ANSWER_BYTES = 96 * 1024 * 1024;
/** OpenAI takes input pictures up to 50 MB; the others less. */
const MAX_INPUT_BYTES = 50 * 1024 * 1024;
const PIXELS = /^(\d+)x(\d+)$/;
const RATIO = /^\d+(\.\d+)?:\d+(\.\d+)?$/;

/**
 * One generate_image call (generate-image.ts): everything checkable is checked before the paid call — the backend,
 * where the picture can go, what the backend can do (mask, pixel size), the key and the input pictures.
 */
export async function generateImageRun(
  args: Args,
  ctx: ToolContext,
  deps: GenerateImageDeps & { fetch: typeof fetch },
): Promise<ToolResult | string> {
  // The backends load with the first picture, not with every turn that merely offers the tool.
  const { IMAGE_NOT_CONFIGURED, imageSettings } = await import("../../media/image-backends/image-settings.ts");
  const settings = imageSettings(ctx.config);
  if (!settings) return { isError: true, content: IMAGE_NOT_CONFIGURED };
  const channel = ctx.channel?.sendFile ? ctx.channel : undefined;
  if (args.delivery === "send" && !channel) {
    return {
      isError: true,
      content:
        'delivery "send" needs a chat to send to, and this call has none (CLI, job or subagent); use delivery "save" and the file is kept in the workspace.',
    };
  }
  const planned = plan(args, settings);
  if ("refused" in planned) return { isError: true, content: planned.refused };

  let apiKey = "";
  let signIn: ImageTarget["signIn"];
  if (settings.signIn) {
    // auth.json sits beside config.toml; the token is read (and checked) when the backend sends.
    const home = ctx.configFile ? dirname(ctx.configFile) : resolveHome(deps.env ?? processEnv());
    const { codexSignIn } = await import("../../media/image-backends/openai-codex.ts");
    signIn = codexSignIn(home, deps.env);
  } else if (settings.key) {
    try {
      apiKey = ctx.resolveSecret(settings.key.ref, settings.key.slot);
    } catch (err) {
      return {
        isError: true,
        content: `Image generation is not configured: the ${settings.service.id} backend has no key (${(err as Error).message}). Set ${settings.key.where}: run \`fermix setup\` and choose an image backend.`,
      };
    }
  }

  let job: ImageJob = { operation: planned.operation, prompt: args.prompt, model: args.model ?? settings.model };
  if (planned.size) job = { ...job, size: planned.size };
  if (planned.operation === "edit") {
    const image = await inputPicture(args.input_image!, "input_image", ctx);
    if ("result" in image) return image.result;
    job = { ...job, image };
    if (args.mask) {
      const mask = await inputPicture(args.mask, "mask", ctx);
      if ("result" in mask) return mask.result;
      if (mask.mime !== "image/png") return { isError: true, content: "mask must be a PNG with transparency." };
      job = { ...job, mask };
    }
  }

  let picture: ImageBytes;
  try {
    const http = settings.ownerBaseUrl ? ownerHttp(deps.fetch, ctx.signal) : guardedHttp(ctx);
    picture = await settings.service.run(
      job,
      { baseUrl: settings.baseUrl, apiKey, ...(signIn ? { signIn } : {}) },
      http,
    );
  } catch (err) {
    if (ctx.signal.aborted) return { isError: true, content: "generate_image was cancelled." };
    const message = isFermixError(err) ? err.message : `${settings.service.id}: ${(err as Error).message}`;
    return { isError: true, content: scrub(message, apiKey) };
  }

  const path = join(ctx.sandbox.status().workspaceRoot, "media", `image-${randomHex(6)}.${EXTENSIONS[picture.mime]}`);
  const written = await ctx.sandbox.writeFile(path, picture.bytes, ctx.caller);
  if (!written.ok) return denied(written, ctx);
  const made = `${job.operation === "edit" ? "Edited" : "Generated"} an image with ${settings.service.label} (${job.model})${planned.note ?? ""} and saved it to ${written.path}`;
  if (!channel || args.delivery === "save") return `${made}.`;
  try {
    await channel.sendFile!({
      kind: "image",
      bytes: picture.bytes,
      filename: basename(written.path),
      mime: picture.mime,
    });
  } catch (err) {
    // The file is kept: send_attachment can try again (as a document when a photo is too large).
    return `${made}, but sending it to this chat failed: ${(err as Error).message}`;
  }
  return `${made}; it was sent to this chat.`;
}

type Plan = { operation: "generate" | "edit"; size?: string; note?: string } | { refused: string };

/** The call checked against the backend's abilities: refused loudly, never silently dropped. */
function plan(args: Args, settings: ImageSettings): Plan {
  const backend = settings.service.id;
  const operation = args.operation ?? (args.input_image ? "edit" : "generate");
  if (operation === "generate" && args.input_image) {
    return { refused: 'input_image is for operation "edit"; leave operation out or set it to "edit".' };
  }
  if (operation === "edit" && !args.input_image) {
    return {
      refused: `an edit needs input_image: a picture in the sandbox, or "${INBOUND_LAST}" for the last one sent in this chat.`,
    };
  }
  if (args.mask && !settings.service.mask) {
    return {
      refused: `mask is supported by the openai backend only; the configured backend is ${backend}. Describe the area to change in the prompt instead.`,
    };
  }
  if (args.mask && operation !== "edit") return { refused: "mask is for an edit: give input_image too." };
  const size = args.size ?? settings.size;
  if (!size || size === "auto") return { operation, ...(size ? { size } : {}) };
  if (settings.service.sizes === "pixels") {
    if (RATIO.test(size)) {
      return {
        refused: `the ${backend} backend takes a pixel size such as "1024x1024", "1536x1024" or "auto", not an aspect ratio.`,
      };
    }
    return { operation, size };
  }
  const pixels = PIXELS.exec(size);
  if (!pixels) return { operation, size };
  // xai and google take no pixel size: the shape of one is what they can honour.
  const [w, h] = [Number(pixels[1]), Number(pixels[2])];
  const d = gcd(w, h) || 1;
  const ratio = `${w / d}:${h / d}`;
  return { operation, size: ratio, note: ` at aspect ratio ${ratio} (${backend} takes no pixel size)` };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** An input picture: the last one this chat sent, or a file the sandbox lets the caller read. */
async function inputPicture(
  source: string,
  field: "input_image" | "mask",
  ctx: ToolContext,
): Promise<ImageBytes | { result: ToolResult }> {
  if (source === INBOUND_LAST) {
    if (field === "mask") {
      return {
        result: { isError: true, content: `mask must be a PNG in the sandbox; "${INBOUND_LAST}" is for input_image.` },
      };
    }
    const last = ctx.channel?.inboundImage?.();
    if (!last) {
      return {
        result: {
          isError: true,
          content: `${field} "${INBOUND_LAST}": no picture was sent in this chat in the last hour. Ask for one, or give a sandbox path.`,
        },
      };
    }
    return { bytes: last.data, mime: imageType(last.data) ?? last.mime };
  }
  const read = await ctx.sandbox.readFile(source, ctx.caller, MAX_INPUT_BYTES);
  if (!read.ok) {
    if (read.code === "not_found") return { result: { isError: true, content: `${field} not found: ${source}` } };
    return { result: denied(read, ctx) };
  }
  if (read.truncated) return { result: { isError: true, content: `${field} ${read.path} is over 50 MB.` } };
  const mime = imageType(read.bytes);
  if (!mime)
    return { result: { isError: true, content: `${field} ${read.path} is not a PNG, JPEG, WebP or GIF picture.` } };
  return { bytes: read.bytes, mime };
}

/** The default API roots are public hosts: the tools' guarded door, with a cap fit for pictures. */
function guardedHttp(ctx: ToolContext): ImageHttp {
  return async (url, init) => {
    const answer = await ctx.net(url, {
      method: "POST",
      headers: init.headers,
      body: init.body,
      maxBytes: MAX_ANSWER_BYTES,
      maxRedirects: 0,
      timeoutMs: IMAGE_TIMEOUT_MS,
      signal: ctx.signal,
    });
    if (answer.truncated) throw new Error(`the answer was over ${MAX_ANSWER_BYTES / 1024 / 1024} MB`);
    return { status: answer.status, text: new TextDecoder().decode(answer.body) };
  };
}

/**
 * An API root the owner wrote (generate_image's base_url, or the chat provider's, which already gets this key):
 * trusted as written like the chat wires', so a proxy or self-hosted server on this machine works.
 */
function ownerHttp(send: typeof fetch, signal: AbortSignal): ImageHttp {
  return async (url, init) => {
    const response = await send(url, {
      method: "POST",
      headers: init.headers,
      body: init.body as string | Uint8Array<ArrayBuffer>,
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(IMAGE_TIMEOUT_MS)]),
    });
    const { body, truncated } = await readCapped(response, MAX_ANSWER_BYTES);
    if (truncated) throw new Error(`the answer was over ${MAX_ANSWER_BYTES / 1024 / 1024} MB`);
    return { status: response.status, text: new TextDecoder().decode(body) };
  };
}
