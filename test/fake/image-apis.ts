/**
 * Fake image-generation services on 127.0.0.1, one per flavor, each as strict as the real one about what it reads
 * and answering in its own error shapes:
 * - openai: POST /v1/images/generations (JSON) and /v1/images/edits (multipart `image` or `image[]`, optional
 *   `mask` PNG), Bearer key; `{ created, data: [{ b64_json }], … }` back. GPT image models refuse
 *   `response_format` (they always answer base64); a wrong key is OpenAI's 401.
 * - xai: POST /v1/images/generations and /v1/images/edits, both JSON only (an edit's picture is `image: { url }`, a
 *   data URL), Bearer key; no `size` and no `mask`; `data[0].b64_json` when response_format is b64_json, else a URL.
 *   A wrong key is SpaceXAI's 400 `{ code, error }`.
 * - google: POST /v1beta/models/<model>:generateContent, key in `x-goog-api-key` or `?key=`; `contents[].parts[]`
 *   each exactly one of text / inlineData; the picture back as `candidates[0].content.parts[].inlineData`. A wrong
 *   key is Google's 400 API_KEY_INVALID.
 */
import { sniffImage } from "./image-data.ts";
import { openAiError, openAiInvalid, openAiMalformedJson, openAiMissingKey, openAiWrongKey } from "./openai-errors.ts";
import { bearerToken, ids, isObject, jsonResponse, maskKey, unixSeconds } from "./wire-kit.ts";

/** A real 1×1 PNG: what the fakes answer with and what tests feed as input pictures. */
export const PNG_PIXEL_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
export const PNG_PIXEL = new Uint8Array(Buffer.from(PNG_PIXEL_BASE64, "base64"));

export type ImageFlavor = "openai" | "xai" | "google";

export type ImageReply =
  | { kind: "image"; bytes?: Uint8Array }
  /** The vendor's own error body for this status (401, 429, 500…). */
  | { kind: "error"; status: number }
  /** google: a 200 without a picture (the prompt was blocked). */
  | { kind: "blocked" };

export type UploadedPart = { name: string; filename: string; type: string; bytes: Uint8Array };

export type RecordedImageRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** A JSON body, parsed. */
  json?: any;
  /** Multipart text fields in order. */
  fields: Array<{ name: string; value: string }>;
  /** Multipart files in order. */
  files: UploadedPart[];
};

export type FakeImageApi = {
  /** The API root a client is pointed at (`…/v1`, or `…/v1beta` for google). */
  baseUrl: string;
  requests: RecordedImageRequest[];
  enqueue(...replies: ImageReply[]): void;
  close(): Promise<void>;
};

const OPENAI_MODELS = ["gpt-image-2", "gpt-image-1.5", "gpt-image-1", "gpt-image-1-mini", "dall-e-2", "dall-e-3"];
const OPENAI_GENERATE_KEYS = [
  "model",
  "prompt",
  "n",
  "size",
  "quality",
  "background",
  "output_format",
  "output_compression",
  "moderation",
  "response_format",
  "style",
  "user",
  "safety_identifier",
];
const XAI_MODELS = ["grok-imagine-image-quality", "grok-imagine-image", "grok-imagine-image-pro", "grok-2-image"];
const XAI_RATIOS = [
  "1:1",
  "3:4",
  "4:3",
  "9:16",
  "16:9",
  "2:3",
  "3:2",
  "9:19.5",
  "19.5:9",
  "9:20",
  "20:9",
  "1:2",
  "2:1",
];
const GOOGLE_MODELS = ["gemini-3.1-flash-image", "gemini-3-pro-image", "gemini-2.5-flash-image"];
const GOOGLE_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];

export async function startFakeImageApi(opts: { flavor: ImageFlavor; apiKey: string }): Promise<FakeImageApi> {
  const requests: RecordedImageRequest[] = [];
  const queue: ImageReply[] = [];
  const handler = { openai, xai, google }[opts.flavor];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const headers = Object.fromEntries(req.headers);
      const rec: RecordedImageRequest = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        fields: [],
        files: [],
      };
      requests.push(rec);
      const type = headers["content-type"] ?? "";
      let malformed = false;
      if (type.startsWith("multipart/form-data")) {
        for (const [name, value] of (await req.formData()).entries()) {
          if (typeof value === "string") rec.fields.push({ name, value });
          else {
            const bytes = new Uint8Array(await (value as File).arrayBuffer());
            rec.files.push({ name, filename: (value as File).name, type: value.type, bytes });
          }
        }
      } else {
        const text = await req.text();
        try {
          rec.json = text ? JSON.parse(text) : undefined;
        } catch {
          malformed = true;
        }
      }
      const rejection = handler.validate(rec, opts.apiKey, malformed);
      if (rejection) return rejection;
      const reply = queue.shift() ?? { kind: "image" };
      if (reply.kind === "error") return handler.error(reply.status);
      return handler.success(reply, rec);
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    baseUrl: `${origin}${opts.flavor === "google" ? "/v1beta" : "/v1"}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    close: async () => void (await server.stop(true)),
  };
}

type Flavor = {
  validate(rec: RecordedImageRequest, apiKey: string, malformed: boolean): Response | null;
  success(reply: Extract<ImageReply, { kind: "image" | "blocked" }>, rec: RecordedImageRequest): Response;
  error(status: number): Response;
};

const base64Of = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const isPicture = (bytes: Uint8Array) => sniffImage(base64Of(bytes)) !== undefined;

const openai: Flavor = {
  validate(rec, apiKey, malformed) {
    const route = rec.path === "/v1/images/generations" ? "generate" : rec.path === "/v1/images/edits" ? "edit" : "";
    if (rec.method !== "POST" || !route) {
      return openAiError(404, {
        message: `Invalid URL (${rec.method} ${rec.path})`,
        type: "invalid_request_error",
        param: null,
        code: null,
      });
    }
    const key = bearerToken(rec.headers);
    if (key === undefined) return openAiMissingKey();
    if (key !== apiKey) return openAiWrongKey(key);
    return route === "generate" ? openaiGenerate(rec, malformed) : openaiEdit(rec);
  },
  success(reply, rec) {
    const image = reply.kind === "image" ? (reply.bytes ?? PNG_PIXEL) : PNG_PIXEL;
    const size = rec.json?.size ?? rec.fields.find((f) => f.name === "size")?.value ?? "1024x1024";
    return jsonResponse(200, {
      created: unixSeconds(),
      background: "opaque",
      data: [{ b64_json: base64Of(image) }],
      output_format: "png",
      quality: "medium",
      size: size === "auto" ? "1024x1024" : size,
      usage: {
        input_tokens: 50,
        input_tokens_details: { image_tokens: 0, text_tokens: 50 },
        output_tokens: 1056,
        total_tokens: 1106,
      },
    });
  },
  error(status) {
    if (status === 401) return openAiWrongKey("sk-revoked-0000");
    if (status === 400) {
      return openAiError(400, {
        message:
          "Your request was rejected as a result of our safety system. Your request may contain content that is not allowed by our safety system.",
        type: "image_generation_user_error",
        param: null,
        code: "moderation_blocked",
      });
    }
    if (status === 429) {
      return openAiError(429, {
        message: "Rate limit reached for gpt-image-2 in organization org-fake on images per min (IPM).",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      });
    }
    return openAiError(status, {
      message: "The server had an error while processing your request. Sorry about that!",
      type: "server_error",
      param: null,
      code: null,
    });
  },
};

function openaiModelProblem(model: unknown): Response | null {
  if (model === undefined || (typeof model === "string" && OPENAI_MODELS.includes(model))) return null;
  return openAiInvalid(
    `Invalid value: '${String(model)}'. Supported values are: ${OPENAI_MODELS.map((m) => `'${m}'`).join(", ")}.`,
    "model",
    "invalid_value",
  );
}

/** gpt-image-2 takes any WIDTHxHEIGHT with both sides divisible by 16; the others a fixed list. */
function openaiSizeProblem(size: unknown, model: string): Response | null {
  if (size === undefined || size === "auto") return null;
  const m = /^(\d+)x(\d+)$/.exec(String(size));
  const free = model.startsWith("gpt-image-2");
  if (
    m &&
    (free
      ? Number(m[1]) % 16 === 0 && Number(m[2]) % 16 === 0
      : ["1024x1024", "1536x1024", "1024x1536"].includes(String(size)))
  ) {
    return null;
  }
  return openAiInvalid(
    `Invalid value: '${String(size)}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`,
    "size",
    "invalid_value",
  );
}

function openaiGenerate(rec: RecordedImageRequest, malformed: boolean): Response | null {
  if (!(rec.headers["content-type"] ?? "").startsWith("application/json") || malformed) return openAiMalformedJson();
  const body = rec.json;
  if (!isObject(body)) return openAiMalformedJson();
  const unknown = Object.keys(body).find((k) => !OPENAI_GENERATE_KEYS.includes(k));
  if (unknown) return openAiInvalid(`Unknown parameter: '${unknown}'.`, unknown, "unknown_parameter");
  if (typeof body.prompt !== "string" || !body.prompt) {
    return openAiInvalid("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter");
  }
  const model = body.model ?? "dall-e-2";
  const bad = openaiModelProblem(body.model) ?? openaiSizeProblem(body.size, model);
  if (bad) return bad;
  if (model.startsWith("gpt-image") && body.response_format !== undefined) {
    return openAiInvalid("Unknown parameter: 'response_format'.", "response_format", "unknown_parameter");
  }
  return null;
}

function openaiEdit(rec: RecordedImageRequest): Response | null {
  const type = rec.headers["content-type"] ?? "";
  if (!type.startsWith("multipart/form-data")) {
    return openAiInvalid(
      `Invalid Content-Type header (${type || "none"}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`,
    );
  }
  const field = (name: string) => rec.fields.find((f) => f.name === name)?.value;
  const images = rec.files.filter((f) => f.name === "image" || f.name === "image[]");
  if (!images.length)
    return openAiInvalid("Missing required parameter: 'image'.", "image", "missing_required_parameter");
  const prompt = field("prompt");
  if (!prompt) return openAiInvalid("Missing required parameter: 'prompt'.", "prompt", "missing_required_parameter");
  const model = field("model") ?? "dall-e-2";
  const bad = openaiModelProblem(field("model")) ?? openaiSizeProblem(field("size"), model);
  if (bad) return bad;
  if (model.startsWith("gpt-image") && field("response_format") !== undefined) {
    return openAiInvalid("Unknown parameter: 'response_format'.", "response_format", "unknown_parameter");
  }
  const unreadable = images.findIndex((f) => !isPicture(f.bytes));
  if (unreadable >= 0) {
    return openAiInvalid(
      `Invalid image file or mode for image ${unreadable + 1}, please check your image file.`,
      "image",
      "invalid_image_file",
    );
  }
  const mask = rec.files.find((f) => f.name === "mask");
  if (mask && sniffImage(base64Of(mask.bytes)) !== "image/png") {
    return openAiInvalid("Invalid mask image file, please check your mask file.", "mask", "invalid_image_file");
  }
  return null;
}

/** SpaceXAI's error envelope: `{ code, error }`. */
const xaiError = (status: number, code: string, error: string) => jsonResponse(status, { code, error });
const XAI_INVALID = "Client specified an invalid argument";

const xai: Flavor = {
  validate(rec, apiKey, malformed) {
    const route = rec.path === "/v1/images/generations" ? "generate" : rec.path === "/v1/images/edits" ? "edit" : "";
    if (rec.method !== "POST" || !route) return xaiError(404, "Not found", "Not found");
    const key = bearerToken(rec.headers);
    if (key !== apiKey) {
      return xaiError(
        400,
        XAI_INVALID,
        `Incorrect API key provided: ${maskKey(key ?? "")}. You can obtain an API key from https://console.x.ai.`,
      );
    }
    // The Imagine API reads JSON only; the OpenAI SDK's multipart edit is refused.
    if (!(rec.headers["content-type"] ?? "").startsWith("application/json") || malformed || !isObject(rec.json)) {
      return xaiError(400, XAI_INVALID, "Failed to deserialize the JSON body into the target type");
    }
    const body = rec.json;
    const allowed = [
      "model",
      "prompt",
      "n",
      "response_format",
      "aspect_ratio",
      "resolution",
      "user",
      "image",
      "images",
    ];
    const unknown = Object.keys(body).find((k) => !allowed.includes(k));
    if (unknown) return xaiError(400, XAI_INVALID, `Argument not supported: ${unknown}`);
    if (typeof body.prompt !== "string" || !body.prompt) return xaiError(400, XAI_INVALID, "prompt must not be empty");
    if (body.model !== undefined && !XAI_MODELS.includes(body.model)) {
      return xaiError(
        404,
        "Some requested entity was not found",
        `The model ${body.model} does not exist or your team does not have access to it.`,
      );
    }
    if (body.aspect_ratio !== undefined && body.aspect_ratio !== "auto" && !XAI_RATIOS.includes(body.aspect_ratio)) {
      return xaiError(400, XAI_INVALID, `Invalid aspect_ratio: ${body.aspect_ratio}`);
    }
    if (route === "generate" && (body.image !== undefined || body.images !== undefined)) {
      return xaiError(400, XAI_INVALID, "Argument not supported on this endpoint: image");
    }
    if (route === "edit") {
      const url = body.image?.url;
      if (typeof url !== "string") return xaiError(400, XAI_INVALID, "image.url is required");
      const m = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(url);
      if (!m || sniffImage(m[2]!) === undefined) {
        return xaiError(
          400,
          XAI_INVALID,
          "Unable to decode the input image: expected a base64 data URI or an https URL",
        );
      }
    }
    return null;
  },
  success(reply, rec) {
    const image = reply.kind === "image" ? (reply.bytes ?? PNG_PIXEL) : PNG_PIXEL;
    const item =
      rec.json?.response_format === "b64_json"
        ? { b64_json: base64Of(image), mime_type: "image/png" }
        : { url: `https://imgen.x.ai/xai-imgen/xai-tmp-imgen-${ids.hex("", 32)}.png` };
    return jsonResponse(200, { data: [{ ...item, revised_prompt: "" }] });
  },
  error(status) {
    if (status === 401) {
      return xaiError(
        400,
        XAI_INVALID,
        "Incorrect API key provided: xa***ev. You can obtain an API key from https://console.x.ai.",
      );
    }
    if (status === 400) return xaiError(400, XAI_INVALID, "Generated image rejected by content moderation.");
    if (status === 429) return xaiError(429, "Too many requests", "Rate limit exceeded for this team");
    return xaiError(status, "Internal error", "The service is temporarily unavailable");
  },
};

/** Google's error envelope: `{ error: { code, message, status, details? } }`. */
function googleError(status: number, state: string, message: string, details?: object[]): Response {
  return jsonResponse(status, { error: { code: status, message, status: state, ...(details ? { details } : {}) } });
}

const googleKeyInvalid = () =>
  googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    },
  ]);

const google: Flavor = {
  validate(rec, apiKey, malformed) {
    const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(rec.path);
    if (!m) return googleError(404, "NOT_FOUND", `The requested URL ${rec.path} was not found on this server.`);
    if (rec.method !== "POST") return googleError(405, "METHOD_NOT_ALLOWED", "Method Not Allowed");
    const key = rec.headers["x-goog-api-key"] ?? rec.query.key;
    if (!key) {
      return googleError(
        403,
        "PERMISSION_DENIED",
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    if (key !== apiKey) return googleKeyInvalid();
    const model = decodeURIComponent(m[1]!);
    if (!GOOGLE_MODELS.includes(model)) {
      return googleError(
        404,
        "NOT_FOUND",
        `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      );
    }
    if (malformed || !isObject(rec.json)) {
      return googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected token.");
    }
    const body = rec.json;
    const unknownTop = Object.keys(body).find(
      (k) => !["contents", "generationConfig", "safetySettings", "systemInstruction"].includes(k),
    );
    if (unknownTop) {
      return googleError(
        400,
        "INVALID_ARGUMENT",
        `Invalid JSON payload received. Unknown name "${unknownTop}": Cannot find field.`,
      );
    }
    if (!Array.isArray(body.contents) || !body.contents.length) {
      return googleError(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified\n");
    }
    for (const [i, content] of body.contents.entries()) {
      if (!Array.isArray(content?.parts) || !content.parts.length) {
        return googleError(
          400,
          "INVALID_ARGUMENT",
          `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`,
        );
      }
      for (const [j, part] of content.parts.entries()) {
        const kinds = ["text", "inlineData"].filter((k) => part?.[k] !== undefined);
        if (kinds.length !== 1) {
          return googleError(
            400,
            "INVALID_ARGUMENT",
            `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n`,
          );
        }
        if (
          part.inlineData &&
          (typeof part.inlineData.mimeType !== "string" || sniffImage(part.inlineData.data) === undefined)
        ) {
          return googleError(
            400,
            "INVALID_ARGUMENT",
            "Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
          );
        }
      }
    }
    const config = body.generationConfig ?? {};
    const unknownConfig = Object.keys(config).find(
      (k) => !["responseModalities", "imageConfig", "temperature", "candidateCount"].includes(k),
    );
    if (unknownConfig) {
      return googleError(
        400,
        "INVALID_ARGUMENT",
        `Invalid JSON payload received. Unknown name "${unknownConfig}" at 'generation_config': Cannot find field.`,
      );
    }
    const ratio = config.imageConfig?.aspectRatio;
    if (ratio !== undefined && !GOOGLE_RATIOS.includes(ratio)) {
      return googleError(400, "INVALID_ARGUMENT", `Unsupported aspect ratio: ${ratio}`);
    }
    return null;
  },
  success(reply, rec) {
    const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 };
    if (reply.kind === "blocked")
      return jsonResponse(200, { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata });
    const image = reply.bytes ?? PNG_PIXEL;
    return jsonResponse(200, {
      candidates: [
        {
          content: {
            parts: [
              { text: "Here is your picture." },
              { inlineData: { mimeType: "image/png", data: base64Of(image) } },
            ],
            role: "model",
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: rec.path.split("/").at(-1)!.split(":")[0],
      responseId: ids.hex("", 22),
    });
  },
  error(status) {
    if (status === 401) return googleKeyInvalid();
    if (status === 429) {
      return googleError(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
      );
    }
    return googleError(
      status,
      "INTERNAL",
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    );
  },
};
