import { googleImages } from "./google.ts";
import type { ImageBackend, ImageBackendId } from "./image-types.ts";
import { openaiImages } from "./openai.ts";
import { openaiCodexImages } from "./openai-codex.ts";
import { xaiImages } from "./xai.ts";

/** Every image service, one line each ([fermix_core.tools.generate_image] backend). */
export const IMAGE_SERVICES: Record<ImageBackendId, ImageBackend> = {
  openai: openaiImages,
  xai: xaiImages,
  google: googleImages,
  openai_codex: openaiCodexImages,
};
