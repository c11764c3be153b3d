/**
 * Fake ChatGPT Codex backend (`POST /backend-api/codex/responses`): the Responses wire behind a signed-in
 * ChatGPT token. It enforces what the real backend enforces before it streams — a current bearer, the
 * account header, `store: false`, `stream: true`, instructions, no output cap — answering in its own error
 * shapes (`{"detail": …}` for body rules, the OpenAI envelope for tokens). `enqueueFrames` scripts the
 * undelivered-stream cases (declared failures, silent ends) that no ordinary reply produces.
 *
 * A request offering the hosted `image_generation` tool (generate_image's openai_codex backend) is answered as the
 * backend does: the tool's events and an `image_generation_call` output item whose `result` is a base64 PNG, in
 * `response.output_item.done` and again in `response.completed`. A plan without image generation (`imagePlan:
 * false`) is refused with a 403 before anything streams.
 */
import { type Incoming, startFakeServer } from "./fake-server.ts";
import { PNG_PIXEL_BASE64 } from "./image-apis.ts";
import { renderResponses, validateResponses } from "./openai-responses.ts";
import type { FakeLlm, RenderableReply } from "./types.ts";
import { bearerToken, ids, isObject, jsonResponse, sseFrame, sseResponse, unixSeconds } from "./wire-kit.ts";

export type FakeCodex = FakeLlm & {
  /** The access token accepted from now on (what a refresh in the test hands out). */
  setToken(token: string): void;
  /** The next reply is these SSE events as they are, ended cleanly, or reset with `cut`. */
  enqueueFrames(frames: Array<Record<string, unknown>>, opts?: { cut?: boolean }): void;
};

export type FakeCodexOptions = {
  accessToken: string;
  accountId: string;
  /** Also accepted as a current bearer (a refresh in the test's fake token endpoint hands out unknown tokens). */
  acceptToken?: (token: string) => boolean;
  /** false: the signed-in plan has no image generation, and an image_generation request gets the 403. */
  imagePlan?: boolean;
  /** The base64 picture an image_generation call returns (a 1×1 PNG by default). */
  imageBase64?: string;
};

export async function startFakeCodex(opts: FakeCodexOptions): Promise<FakeCodex> {
  let token = opts.accessToken;
  const raw: Array<{ frames: Array<Record<string, unknown>>; cut: boolean }> = [];
  const fake = await startFakeServer({
    baseUrl: (origin) => `${origin}/backend-api/codex`,
    path: "/backend-api/codex/responses",
    notFound: () => jsonResponse(404, { detail: "Not Found" }),
    validate: (incoming) => {
      const accepted = (t: string) => t === token || opts.acceptToken?.(t) === true;
      return validate(incoming, accepted, opts.accountId) ?? validateImageRequest(incoming, opts.imagePlan !== false);
    },
    render: (reply: RenderableReply, incoming: Incoming) => {
      const next = raw.shift();
      if (!next && reply.kind !== "error" && wantsImage(incoming.json)) {
        return renderImage(incoming.json as Record<string, any>, opts.imageBase64 ?? PNG_PIXEL_BASE64);
      }
      if (!next) return renderResponses(reply, incoming);
      const frames = next.frames.map((f) => sseFrame(f, String(f.type)));
      return sseResponse(frames, { cut: next.cut });
    },
  });
  return {
    ...fake,
    baseUrl: fake.baseUrl,
    requests: fake.requests,
    setToken: (t) => {
      token = t;
    },
    enqueueFrames: (frames, o = {}) => {
      raw.push({ frames, cut: o.cut === true });
    },
  };
}

function validate(incoming: Incoming, accepted: (token: string) => boolean, accountId: string): Response | null {
  const { rec, json } = incoming;
  const bearer = bearerToken(rec.headers);
  if (bearer === undefined) {
    return openAiShaped(401, "Missing bearer or basic authentication in header", null);
  }
  if (!accepted(bearer)) {
    return openAiShaped(401, "Provided authentication token is expired. Please try signing in again.", "token_expired");
  }
  if (rec.headers["chatgpt-account-id"] !== accountId) {
    return jsonResponse(403, { detail: "Missing or mismatched chatgpt-account-id header" });
  }
  if (isObject(json)) {
    if (json.store !== false) return jsonResponse(400, { detail: "Store must be set to false" });
    if (json.stream !== true) return jsonResponse(400, { detail: "Stream must be set to true" });
    if (typeof json.instructions !== "string" || !json.instructions) {
      return jsonResponse(400, { detail: "Instructions are required" });
    }
    if ("max_output_tokens" in json) return jsonResponse(400, { detail: "Unsupported parameter: max_output_tokens" });
  }
  return validateResponses(incoming, undefined);
}

function openAiShaped(status: number, message: string, code: string | null): Response {
  return jsonResponse(status, { error: { message, type: null, code, param: null } });
}

const IMAGE_SIZES = ["1024x1024", "1024x1536", "1536x1024", "auto"];
const IMAGE_FORMATS = ["png", "webp", "jpeg"];

function wantsImage(json: unknown): boolean {
  return (
    isObject(json) && Array.isArray(json.tools) && json.tools.some((t) => isObject(t) && t.type === "image_generation")
  );
}

/**
 * The hosted image tool's own rules: known size and output_format values, a tool_choice that names a tool the
 * request offers, and the plan gate (the sign-in is fine, the plan does not draw).
 */
function validateImageRequest({ json }: Incoming, planDraws: boolean): Response | null {
  if (!isObject(json)) return null;
  const choice = json.tool_choice;
  if (isObject(choice) && choice.type === "image_generation" && !wantsImage(json)) {
    return openAiShaped(400, "Tool choice 'image_generation' not found in 'tools' parameter.", null);
  }
  if (!wantsImage(json)) return null;
  const tool = (json.tools as unknown[]).find((t) => isObject(t) && t.type === "image_generation") as Record<
    string,
    unknown
  >;
  if (tool.size !== undefined && !IMAGE_SIZES.includes(tool.size as string)) {
    return openAiShaped(
      400,
      `Invalid value: '${String(tool.size)}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`,
      "invalid_value",
    );
  }
  if (tool.output_format !== undefined && !IMAGE_FORMATS.includes(tool.output_format as string)) {
    return openAiShaped(400, `Invalid value: '${String(tool.output_format)}'.`, "invalid_value");
  }
  if (!planDraws) {
    return jsonResponse(403, { detail: "Image generation is not available on your current plan." });
  }
  return null;
}

/** The stream of one image_generation call: added, in progress, generating, done (with the picture), completed. */
function renderImage(body: Record<string, any>, base64: string): Response {
  const responseId = ids.hex("resp_", 48);
  const itemId = ids.hex("ig_", 48);
  const base = {
    id: responseId,
    object: "response",
    created_at: unixSeconds(),
    model: body.model,
    status: "in_progress",
    output: [] as unknown[],
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools,
    store: false,
  };
  const tool = body.tools.find((t: any) => t?.type === "image_generation");
  const done = {
    type: "image_generation_call",
    id: itemId,
    status: "completed",
    result: base64,
    revised_prompt: "A picture as asked.",
    output_format: tool.output_format ?? "png",
    size: tool.size ?? "1024x1024",
  };
  let seq = 0;
  const frame = (event: Record<string, unknown>) => sseFrame({ ...event, sequence_number: seq++ }, String(event.type));
  const frames = [
    frame({ type: "response.created", response: base }),
    frame({ type: "response.in_progress", response: base }),
    frame({
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "image_generation_call", id: itemId, status: "in_progress" },
    }),
    frame({ type: "response.image_generation_call.in_progress", output_index: 0, item_id: itemId }),
    frame({ type: "response.image_generation_call.generating", output_index: 0, item_id: itemId }),
    frame({ type: "response.image_generation_call.completed", output_index: 0, item_id: itemId }),
    frame({ type: "response.output_item.done", output_index: 0, item: done }),
    frame({
      type: "response.completed",
      response: {
        ...base,
        status: "completed",
        output: [done],
        usage: { input_tokens: 40, output_tokens: 12, total_tokens: 52 },
      },
    }),
  ];
  return sseResponse(frames);
}
