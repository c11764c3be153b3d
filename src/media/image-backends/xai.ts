import { dataUrl, decodedImage, postImageRequest } from "./_http.ts";
import type { ImageBackend } from "./image-types.ts";

/**
 * SpaceXAI's Imagine API: `POST /images/generations` and `POST /images/edits`, both JSON (edits take the picture
 * as `image: { url }`, a data URL), Bearer key, `response_format: "b64_json"` asked for (the default is a URL).
 * No pixel size and no mask: the shape is an `aspect_ratio`.
 */
export const xaiImages: ImageBackend = {
  id: "xai",
  label: "SpaceXAI Grok",
  defaultBaseUrl: "https://api.x.ai/v1",
  defaultModel: "grok-imagine-image-quality",
  mask: false,
  sizes: "ratio",
  async run(job, target, http) {
    const request = {
      model: job.model,
      prompt: job.prompt,
      n: 1,
      response_format: "b64_json",
      ...(job.size ? { aspect_ratio: job.size } : {}),
      ...(job.operation === "edit" ? { image: { url: dataUrl(job.image!) } } : {}),
    };
    const body = await postImageRequest(
      "xai",
      `${target.baseUrl}/images/${job.operation === "edit" ? "edits" : "generations"}`,
      {
        headers: { authorization: `Bearer ${target.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(request),
      },
      target,
      http,
    );
    return decodedImage("xai", body?.data?.[0]?.b64_json);
  },
};
