import { defineTool } from "../tool.ts";
import { Args, type GenerateImageDeps, IMAGE_TIMEOUT_MS, INBOUND_LAST } from "./generate-image-params.ts";

export type { GenerateImageDeps } from "./generate-image-params.ts";

/**
 * generate_image (spec: self-knowledge.md, "Media"): one picture from the configured backend, written to
 * `<workspace>/media/image-<token>.png` and sent to the chat a channel turn answers (generate-image-run.ts).
 */
export function createGenerateImage(deps: GenerateImageDeps = {}) {
  // The platform's fetch as it is when the tool is made, as before its run moved behind a lazy import.
  const runDeps = { ...deps, fetch: deps.fetch ?? fetch };
  return defineTool({
    name: "generate_image",
    description: "Create or edit a picture with the image backend: saved under media/, sent when in a chat.",
    policy: "network",
    readOnly: false,
    deferrable: true,
    timeoutMs: IMAGE_TIMEOUT_MS + 30_000,
    parameters: Args,
    help: `The owner picks the backend in [fermix_core.tools.generate_image] (openai, xai, google or openai_codex; fermix setup's Media tab). The file goes to <workspace>/media/image-<token>.png; in a chat it is also sent there (delivery "send", the default when a chat can take files), elsewhere (CLI, jobs, subagents) it is only saved. An edit needs input_image: a sandbox path or "${INBOUND_LAST}" (the last picture sent in this chat, kept for an hour). mask is OpenAI only; xai and google take an aspect ratio instead of a pixel size. Keys: openai and xai use their chat provider's api_key (OPENAI_API_KEY, XAI_API_KEY); google uses google_api_key or GEMINI_API_KEY; openai_codex uses the ChatGPT plan's sign-in (fermix auth login --provider codex), and a plan without image generation is refused (auth_failed). Not for diagrams, charts, code assets or live data.`,
    async execute(args, ctx) {
      // What a call does loads with the first picture, not with the tool list (issue 31: boot RSS, ask's import).
      const { generateImageRun } = await import("./generate-image-run.ts");
      return generateImageRun(args, ctx, runDeps);
    },
  });
}

export const generateImage = createGenerateImage();
