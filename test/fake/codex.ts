/**
 * Fake ChatGPT Codex backend (`POST /backend-api/codex/responses`): the Responses wire behind a signed-in
 * ChatGPT token. It enforces what the real backend enforces before it streams — a current bearer, the
 * account header, `store: false`, `stream: true`, instructions, no output cap — answering in its own error
 * shapes (`{"detail": …}` for body rules, the OpenAI envelope for tokens). `enqueueFrames` scripts the
 * undelivered-stream cases (declared failures, silent ends) that no ordinary reply produces.
 */
import { type Incoming, startFakeServer } from "./fake-server.ts";
import { renderResponses, validateResponses } from "./openai-responses.ts";
import type { FakeLlm, RenderableReply } from "./types.ts";
import { bearerToken, isObject, jsonResponse, sseFrame, sseResponse } from "./wire-kit.ts";

export type FakeCodex = FakeLlm & {
  /** The access token accepted from now on (what a refresh in the test hands out). */
  setToken(token: string): void;
  /** The next reply is these SSE events as they are, ended cleanly, or reset with `cut`. */
  enqueueFrames(frames: Array<Record<string, unknown>>, opts?: { cut?: boolean }): void;
};

export async function startFakeCodex(opts: { accessToken: string; accountId: string }): Promise<FakeCodex> {
  let token = opts.accessToken;
  const raw: Array<{ frames: Array<Record<string, unknown>>; cut: boolean }> = [];
  const fake = await startFakeServer({
    baseUrl: (origin) => `${origin}/backend-api/codex`,
    path: "/backend-api/codex/responses",
    notFound: () => jsonResponse(404, { detail: "Not Found" }),
    validate: (incoming) => validate(incoming, token, opts.accountId),
    render: (reply: RenderableReply, incoming: Incoming) => {
      const next = raw.shift();
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

function validate(incoming: Incoming, token: string, accountId: string): Response | null {
  const { rec, json } = incoming;
  const bearer = bearerToken(rec.headers);
  if (bearer === undefined) {
    return openAiShaped(401, "Missing bearer or basic authentication in header", null);
  }
  if (bearer !== token) {
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
