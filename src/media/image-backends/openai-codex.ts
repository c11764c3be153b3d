import type { Env } from "../../config/env.ts";
import { fermixPaths } from "../../config/paths.ts";
import { defineError, isFermixError } from "../../error.ts";
import { findProvider } from "../../providers/descriptors.ts";
import type { BearerSource, BearerToken } from "../../providers/types.ts";
import { accountFromJwt } from "../../providers/wires/openai-responses.ts";
import { dataUrl, decodedImage, scrub } from "./_http.ts";
import { type ImageBackend, type ImageBytes, ImageFailed } from "./image-types.ts";

const BACKEND = "openai_codex";
/** `fermix auth login --provider codex`: the chat provider's own sign-in, shared with this backend. */
export const CODEX_LOGIN = findProvider(BACKEND)?.oauth?.login ?? "fermix auth login --provider codex";

/** The sign-in works but the plan it belongs to does not draw: the facts' `auth_failed`. */
export const ImageAuthFailed = defineError<{ backend: string; status?: number }>("auth_failed");

const INSTRUCTIONS =
  "Make exactly one picture with the image_generation tool from the user's request (for an edit, change the attached picture as asked). Do not answer in words.";

/**
 * A ChatGPT plan's pictures: the hosted `image_generation` tool of the Responses API on the Codex backend
 * (`POST {base}/responses`), driven by a router model that is made to call it (`tool_choice`). The backend
 * takes only signed-in, stored-nowhere, streamed requests (`store: false`, `stream: true`, instructions), so the
 * picture is read from the SSE: the `image_generation_call` item's `result` (base64) in
 * `response.output_item.done`, or in `response.completed`'s output. Bearer from the openai_codex profile, the
 * account header and Codex's own headers as the chat wire sends them; a 401 refreshes the token once.
 */
export const openaiCodexImages: ImageBackend = {
  id: BACKEND,
  label: "ChatGPT plan (Codex)",
  defaultBaseUrl: "https://chatgpt.com/backend-api/codex",
  defaultModel: "gpt-5.6-terra",
  // The hosted tool has an inpainting mask, but fermix's mask contract is OpenAI Images' edits endpoint only.
  mask: false,
  sizes: "pixels",
  async run(job, target, http) {
    const tokens = target.signIn;
    if (!tokens) {
      throw ImageAuthFailed(`${BACKEND} signs in with the ChatGPT plan instead of a key: ${CODEX_LOGIN}`, {
        backend: BACKEND,
      });
    }
    const content: object[] = [{ type: "input_text", text: job.prompt }];
    if (job.image) content.push({ type: "input_image", image_url: dataUrl(job.image) });
    const request = JSON.stringify({
      model: job.model,
      instructions: INSTRUCTIONS,
      input: [{ role: "user", content }],
      tools: [{ type: "image_generation", output_format: "png", ...(job.size ? { size: job.size } : {}) }],
      tool_choice: { type: "image_generation" },
      store: false,
      stream: true,
    });
    let token = await signedIn(() => tokens.token());
    for (let attempt = 0; ; attempt++) {
      const secret = token.accessToken;
      const account = token.accountId ?? accountFromJwt(secret);
      let answer: { status: number; text: string };
      try {
        answer = await http(`${target.baseUrl}/responses`, {
          headers: {
            authorization: `Bearer ${secret}`,
            ...(account ? { "chatgpt-account-id": account } : {}),
            "openai-beta": "responses=experimental",
            originator: "pi",
            accept: "text/event-stream",
            "content-type": "application/json",
          },
          body: request,
        });
      } catch (err) {
        throw ImageFailed(scrub(`${BACKEND} could not be reached: ${(err as Error).message}`, secret), {
          backend: BACKEND,
        });
      }
      if (answer.status === 401 && attempt === 0) {
        token = await signedIn(() => tokens.refreshAfterUnauthorized(secret));
        continue;
      }
      if (answer.status === 401) {
        throw ImageAuthFailed(
          `auth_failed: ${BACKEND} still refused the signed-in token after refreshing it (HTTP 401); sign in again: ${CODEX_LOGIN}`,
          { backend: BACKEND, status: 401 },
        );
      }
      const said = scrub(serverSaid(answer.text), secret);
      if (answer.status === 403) {
        throw ImageAuthFailed(
          `auth_failed: your ChatGPT plan does not include image generation on the Codex backend (HTTP 403: ${said}). Choose another image backend (fermix setup, Media tab), or sign in with an account whose plan includes it: ${CODEX_LOGIN}`,
          { backend: BACKEND, status: 403 },
        );
      }
      if (answer.status < 200 || answer.status > 299) {
        throw ImageFailed(`${BACKEND} refused the request (HTTP ${answer.status}): ${said}`, {
          backend: BACKEND,
          status: answer.status,
        });
      }
      return pictureOf(answer.text, secret);
    }
  },
};

/**
 * The openai_codex profile of FERMIX_HOME's auth.json, the token source chat routes use (re-read per call,
 * refreshed early and once after a 401). src/auth loads on the first call, as for a chat route.
 */
export function codexSignIn(home: string, env?: Env): BearerSource {
  let source: Promise<BearerSource> | undefined;
  const load = () =>
    (source ??= import("../../auth/token-source.ts").then(({ createProfileTokenSource }) =>
      createProfileTokenSource({ paths: fermixPaths(home), ...(env ? { env } : {}) }, "openai_codex"),
    ));
  return {
    token: async () => (await load()).token(),
    refreshAfterUnauthorized: async (rejected) => (await load()).refreshAfterUnauthorized(rejected),
  };
}

/** The token store's own sentence (not signed in, reconnect needed) as this tool's error, with the sign-in. */
async function signedIn(get: () => Promise<BearerToken>): Promise<BearerToken> {
  try {
    const token = await get();
    if (!token?.accessToken) throw new Error("the stored sign-in has no access token");
    return token;
  } catch (err) {
    const reason = (err as Error).message;
    const hint = reason.includes("fermix auth login") ? "" : `; sign in with: ${CODEX_LOGIN}`;
    const busy = isFermixError(err) && (err.code === "auth_busy" || err.code === "auth_token_unreachable");
    if (busy) throw ImageFailed(`${BACKEND} could not renew the sign-in just now: ${reason}`, { backend: BACKEND });
    throw ImageAuthFailed(`${BACKEND}: ${reason}${hint}`, { backend: BACKEND });
  }
}

/** The Codex backend states refusals as `{"detail": …}`, tokens' as OpenAI's `{ error: { message } }`. */
function serverSaid(text: string): string {
  try {
    const body = JSON.parse(text);
    const message = body?.error?.message ?? body?.detail;
    if (typeof message === "string" && message) return message;
  } catch {}
  return text.slice(0, 300) || "no details";
}

/** The picture from the stream (or, should a proxy answer whole, from the JSON response), else why there is none. */
function pictureOf(text: string, secret: string): ImageBytes {
  let picture: string | undefined;
  let failure: string | undefined;
  let words = "";
  const fromItem = (item: any) => {
    if (item?.type !== "image_generation_call") return;
    if (typeof item.result === "string" && item.result) picture ??= item.result;
    else if (item.status === "failed") failure ??= "the image generation call failed";
  };
  const events = text.trimStart().startsWith("{") ? [text] : sseData(text);
  for (const data of events) {
    let event: any;
    try {
      event = JSON.parse(data);
    } catch {
      continue;
    }
    if (Array.isArray(event?.output)) event = { type: "response.completed", response: event };
    switch (event?.type) {
      case "response.output_item.done":
        fromItem(event.item);
        break;
      case "response.output_text.delta":
        if (typeof event.delta === "string") words += event.delta;
        break;
      case "response.completed":
      case "response.incomplete":
        for (const item of event.response?.output ?? []) fromItem(item);
        if (event.type === "response.incomplete") {
          failure ??= `the response stopped early (${event.response?.incomplete_details?.reason ?? "no reason given"})`;
        }
        break;
      case "response.failed":
      case "error": {
        const err = event.response?.error ?? event.error ?? event;
        failure ??= typeof err?.message === "string" ? err.message : `the response failed (${err?.code ?? "no code"})`;
      }
    }
  }
  if (picture) return decodedImage(BACKEND, picture);
  const said = words.trim() ? `; it said: ${words.trim().slice(0, 300)}` : "";
  throw ImageFailed(scrub(`${BACKEND} made no image: ${failure ?? "it answered without a picture"}${said}`, secret), {
    backend: BACKEND,
  });
}

/** Each SSE event's data (its `data:` lines joined), `[DONE]` left out. */
function sseData(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""));
    if (lines.length && lines.join("\n") !== "[DONE]") out.push(lines.join("\n"));
  }
  return out;
}
