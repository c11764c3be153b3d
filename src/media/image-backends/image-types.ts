import type { IMAGE_BACKENDS } from "../../config/sections/tools.ts";
import { defineError } from "../../error.ts";
import type { BearerSource } from "../../providers/types.ts";

export type ImageBackendId = (typeof IMAGE_BACKENDS)[number];

/** A picture as bytes and the type its signature says. */
export type ImageBytes = { bytes: Uint8Array; mime: string };

/** One request to an image service, already checked against what the backend can do. */
export type ImageJob = {
  operation: "generate" | "edit";
  prompt: string;
  model: string;
  /** openai: "1024x1024" or "auto"; xai and google: an aspect ratio such as "16:9" (absent: the service's default). */
  size?: string;
  /** The picture an edit starts from. */
  image?: ImageBytes;
  /** openai only: transparent pixels mark where the edit may paint. */
  mask?: ImageBytes;
};

/** Where the request goes and with which key, or (openai_codex) which signed-in token source. */
export type ImageTarget = { baseUrl: string; apiKey: string; signIn?: BearerSource };

/** One POST, its answer read whole (capped); the caller decides which door it goes through. */
export type ImageHttp = (
  url: string,
  init: { headers: Record<string, string>; body: string | Uint8Array },
) => Promise<{ status: number; text: string }>;

/** One image service: one file each, one line in backends.ts. */
export type ImageBackend = {
  id: ImageBackendId;
  label: string;
  defaultBaseUrl: string;
  defaultModel: string;
  /** Whether the service takes a mask (OpenAI's edits endpoint does; the others are not offered one). */
  mask: boolean;
  /** How a size is given: a pixel size WxH (openai, openai_codex), or an aspect ratio W:H (xai, google). */
  sizes: "pixels" | "ratio";
  run(job: ImageJob, target: ImageTarget, http: ImageHttp): Promise<ImageBytes>;
};

/** The service refused or failed; the message is the service's own words (never the key). */
export const ImageFailed = defineError<{ backend: string; status?: number }>("image_failed");
