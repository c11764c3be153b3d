import { decodedImage, EXTENSIONS, postImageRequest } from "./_http.ts";
import type { ImageBackend, ImageBytes } from "./image-types.ts";

/**
 * OpenAI Images: `POST /images/generations` (JSON) and `POST /images/edits` (multipart `image`, `mask`), Bearer
 * key, `{ created, data: [{ b64_json }] }` back. The GPT image models always answer in base64 and refuse
 * `response_format`; only the retired DALL·E models need it asked for.
 */
export const openaiImages: ImageBackend = {
  id: "openai",
  label: "OpenAI",
  defaultBaseUrl: "https://api.openai.com/v1",
  defaultModel: "gpt-image-2",
  mask: true,
  sizes: "pixels",
  async run(job, target, http) {
    const auth = { authorization: `Bearer ${target.apiKey}` };
    const legacy = job.model.startsWith("dall-e") ? { response_format: "b64_json" } : {};
    let body: any;
    if (job.operation === "generate") {
      const request = {
        model: job.model,
        prompt: job.prompt,
        n: 1,
        ...(job.size ? { size: job.size } : {}),
        ...legacy,
      };
      body = await postImageRequest(
        "openai",
        `${target.baseUrl}/images/generations`,
        { headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(request) },
        target,
        http,
      );
    } else {
      const form = new FormData();
      form.append("image", file(job.image!, "image"));
      form.append("prompt", job.prompt);
      form.append("model", job.model);
      form.append("n", "1");
      if (job.size) form.append("size", job.size);
      if (job.mask) form.append("mask", file(job.mask, "mask"));
      if (legacy.response_format) form.append("response_format", legacy.response_format);
      // The guarded door takes bytes: the platform's own encoder writes the multipart body and its boundary.
      const encoded = new Request("http://multipart.invalid/", { method: "POST", body: form });
      body = await postImageRequest(
        "openai",
        `${target.baseUrl}/images/edits`,
        {
          headers: { ...auth, "content-type": encoded.headers.get("content-type")! },
          body: new Uint8Array(await encoded.arrayBuffer()),
        },
        target,
        http,
      );
    }
    return decodedImage("openai", body?.data?.[0]?.b64_json);
  },
};

function file(image: ImageBytes, name: string): File {
  return new File([image.bytes as Uint8Array<ArrayBuffer>], `${name}.${EXTENSIONS[image.mime] ?? "png"}`, {
    type: image.mime,
  });
}
