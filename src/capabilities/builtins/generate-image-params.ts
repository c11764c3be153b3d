import * as v from "valibot";
import type { Env } from "../../config/env.ts";
import { lazySchema } from "../../valibot-lazy.ts";

// generate_image's arguments and bounds: its declaration (generate-image.ts) and its run (generate-image-run.ts,
// loaded on the first call) share them (issue 31: boot RSS and the one-shot ask's import).

/** A high-quality picture takes a minute or two; past this the call is a failure, not a wait. */
export const IMAGE_TIMEOUT_MS = 240_000;
export const INBOUND_LAST = "inbound:last";

export const Args = lazySchema(() =>
  v.object({
    prompt: v.pipe(
      v.string(),
      v.trim(),
      v.minLength(1),
      v.maxLength(32_000),
      v.description("What to draw, or what to change in an edit."),
    ),
    operation: v.optional(
      v.pipe(
        v.picklist(["generate", "edit"], 'one of "generate" or "edit"'),
        v.description("generate (default) makes a new picture; edit changes input_image."),
      ),
    ),
    input_image: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description(
          `For an edit: a picture inside the sandbox, or "${INBOUND_LAST}" for the last picture sent in this chat.`,
        ),
      ),
    ),
    mask: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description("openai backend only: a PNG in the sandbox whose transparent pixels mark where the edit paints."),
      ),
    ),
    size: v.optional(
      v.pipe(
        v.string(),
        v.regex(
          /^(\d+x\d+|\d+(\.\d+)?:\d+(\.\d+)?|auto)$/,
          'a size such as "1024x1024", an aspect ratio such as "16:9", or "auto"',
        ),
        v.description(
          'openai and openai_codex: a pixel size such as "1024x1024" or "auto"; xai and google: an aspect ratio such as "16:9".',
        ),
      ),
    ),
    model: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Another model of the configured backend."))),
    delivery: v.optional(
      v.pipe(
        v.picklist(["save", "send"], 'one of "save" or "send"'),
        v.description("send (default in a chat) also sends the picture to this chat; save only writes the file."),
      ),
    ),
  }),
);
export type Args = v.InferOutput<typeof Args>;

export type GenerateImageDeps = {
  /** The platform's fetch, for an API root the owner configured (trusted as written, loopback included). */
  fetch?: typeof fetch;
  /** Where openai_codex's sign-in refreshes (FERMIX_TEST_OAUTH_BASE_URL in tests); the process's by default. */
  env?: Env;
};
