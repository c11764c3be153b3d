import { decodedImage, postImageRequest } from "./_http.ts";
import { type ImageBackend, ImageFailed } from "./image-types.ts";

/**
 * Gemini's image models through `POST /models/<model>:generateContent`, key in `x-goog-api-key`: the prompt (and
 * for an edit the picture as `inlineData`) in one user turn, the picture back as an `inlineData` part of the first
 * candidate. No pixel size (an aspect ratio in `imageConfig`) and no mask.
 */
export const googleImages: ImageBackend = {
  id: "google",
  label: "Google Gemini",
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  defaultModel: "gemini-3.1-flash-image",
  mask: false,
  sizes: "ratio",
  async run(job, target, http) {
    const parts: object[] = [{ text: job.prompt }];
    if (job.image) {
      parts.push({ inlineData: { mimeType: job.image.mime, data: Buffer.from(job.image.bytes).toString("base64") } });
    }
    const request = {
      contents: [{ role: "user", parts }],
      generationConfig: {
        responseModalities: ["TEXT", "IMAGE"],
        ...(job.size && job.size !== "auto" ? { imageConfig: { aspectRatio: job.size } } : {}),
      },
    };
    const body = await postImageRequest(
      "google",
      `${target.baseUrl}/models/${encodeURIComponent(job.model)}:generateContent`,
      {
        headers: { "x-goog-api-key": target.apiKey, "content-type": "application/json" },
        body: JSON.stringify(request),
      },
      target,
      http,
    );
    const candidate = body?.candidates?.[0];
    const answered: any[] = candidate?.content?.parts ?? [];
    const picture = answered.find((p) => p?.inlineData?.data);
    if (picture) return decodedImage("google", picture.inlineData.data);
    // A refusal arrives as a 200 without a picture: blocked prompt, a safety stop, or only words.
    const said = answered
      .map((p) => p?.text)
      .filter(Boolean)
      .join(" ")
      .trim();
    const why =
      body?.promptFeedback?.blockReason !== undefined
        ? `the prompt was blocked (${body.promptFeedback.blockReason})`
        : candidate?.finishReason && candidate.finishReason !== "STOP"
          ? `it stopped with ${candidate.finishReason}`
          : "it answered without a picture";
    throw ImageFailed(`google made no image: ${why}${said ? `; it said: ${said.slice(0, 300)}` : ""}`, {
      backend: "google",
    });
  },
};
