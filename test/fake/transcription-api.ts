/**
 * Fake speech-to-text services on 127.0.0.1, one per flavor, each as strict as the real one about what it reads
 * and answering in its own error shapes:
 * - openai: POST /v1/audio/transcriptions, multipart `file` (its extension names the format) + `model`, Bearer key;
 *   `{ "text" }` back; 413 past its size limit with OpenAI's "Maximum content size limit (N) exceeded" wording.
 * - xai: POST /v1/stt, multipart with `file` as the LAST field and no `model`, Bearer key; `{ text, language,
 *   duration, words }` back; a wrong key is a 400 (as SpaceXAI answers it).
 * - deepgram: POST /v1/listen?model=…, the raw audio as the body with an audio/video Content-Type,
 *   `Authorization: Token <key>`; the transcript at results.channels[0].alternatives[0].transcript.
 */
import { openAiError, openAiMissingKey, openAiWrongKey } from "./openai-errors.ts";
import { bearerToken, ids, jsonResponse, maskKey } from "./wire-kit.ts";

export type TranscriptionFlavor = "openai" | "xai" | "deepgram";

export type TranscriptionReply =
  | { kind: "text"; text: string }
  /**
   * The vendor's own error body for this status (401, 413, 429, 500…); `message` (openai flavor) replaces its
   * wording, e.g. to play a careless service that echoes the key it refused.
   */
  | { kind: "error"; status: number; message?: string };

export type RecordedUpload = {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Multipart fields in the order they arrived; a file as its name, type and size. */
  fields: Array<{ name: string; value: string } | { name: string; filename: string; type: string; size: number }>;
  /** The raw body's size (Deepgram: the audio itself). */
  bodyBytes: number;
};

export type FakeTranscription = {
  baseUrl: string;
  requests: RecordedUpload[];
  enqueue(...replies: TranscriptionReply[]): void;
  close(): Promise<void>;
};

const OPENAI_FORMATS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
const OPENAI_MODELS = ["gpt-4o-mini-transcribe", "gpt-4o-transcribe", "whisper-1"];
const DEEPGRAM_MODELS = ["nova-3", "nova-2", "nova", "enhanced", "base"];

export async function startFakeTranscription(opts: {
  flavor: TranscriptionFlavor;
  apiKey: string;
  /** What the service answers when nothing is enqueued. */
  transcript?: string;
  /** The size limit the service enforces (OpenAI's is 25 MB); small in tests. */
  maxBytes?: number;
}): Promise<FakeTranscription> {
  const requests: RecordedUpload[] = [];
  const queue: TranscriptionReply[] = [];
  const maxBytes = opts.maxBytes ?? 25 * 1024 * 1024;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const bytes = new Uint8Array(await req.arrayBuffer());
      const headers = Object.fromEntries(req.headers);
      const rec: RecordedUpload = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        fields: [],
        bodyBytes: bytes.byteLength,
      };
      requests.push(rec);
      if (headers["content-type"]?.startsWith("multipart/form-data")) {
        const form = await new Response(bytes, { headers: { "content-type": headers["content-type"] } }).formData();
        for (const [name, value] of form.entries()) {
          rec.fields.push(
            typeof value === "string"
              ? { name, value }
              : { name, filename: (value as File).name, type: value.type, size: value.size },
          );
        }
      }
      const handler = { openai, xai, deepgram }[opts.flavor];
      const rejection = handler.validate(rec, opts.apiKey, maxBytes);
      if (rejection) return rejection;
      const reply = queue.shift() ?? { kind: "text", text: opts.transcript ?? "hello from the fake" };
      return reply.kind === "error"
        ? handler.error(reply.status, maxBytes, rec, reply.message)
        : handler.success(reply.text);
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    baseUrl: `${origin}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    close: async () => void (await server.stop(true)),
  };
}

type Flavor = {
  validate(rec: RecordedUpload, apiKey: string, maxBytes: number): Response | null;
  success(text: string): Response;
  error(status: number, maxBytes: number, rec: RecordedUpload, message?: string): Response;
};

const field = (rec: RecordedUpload, name: string) => rec.fields.find((f) => f.name === name);

const openai: Flavor = {
  validate(rec, apiKey, maxBytes) {
    if (rec.method !== "POST" || rec.path !== "/v1/audio/transcriptions") {
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
    if (rec.bodyBytes > maxBytes) return this.error(413, maxBytes, rec);
    const type = rec.headers["content-type"] ?? "";
    if (!type.startsWith("multipart/form-data")) {
      return invalid(
        `Invalid Content-Type header (${type || "none"}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`,
      );
    }
    const file = field(rec, "file");
    if (!file || !("filename" in file)) {
      return invalid("1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)");
    }
    const model = field(rec, "model");
    if (!model || !("value" in model)) return invalid("you must provide a model parameter");
    if (!OPENAI_MODELS.includes(model.value)) {
      return openAiError(400, {
        message: `The model \`${model.value}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      });
    }
    const ext = /\.([a-z0-9]+)$/i.exec(file.filename)?.[1]?.toLowerCase();
    if (!ext || !OPENAI_FORMATS.includes(ext)) {
      return openAiError(400, {
        message: `Invalid file format. Supported formats: ${JSON.stringify(OPENAI_FORMATS).replaceAll('"', "'")}`,
        type: "invalid_request_error",
        param: "file",
        code: "invalid_value",
      });
    }
    if (file.size === 0) return invalid("Audio file might be corrupted or unsupported", "file");
    return null;
  },
  success: (text) =>
    jsonResponse(200, {
      text,
      usage: { type: "tokens", input_tokens: 40, output_tokens: 8, total_tokens: 48 },
    }),
  error(status, maxBytes, rec, message) {
    if (message !== undefined) {
      const type = status === 401 ? "invalid_request_error" : "server_error";
      return openAiError(status, { message, type, param: null, code: status === 401 ? "invalid_api_key" : null });
    }
    if (status === 413) {
      return openAiError(413, {
        message: `Maximum content size limit (${maxBytes}) exceeded (${rec.bodyBytes} bytes read)`,
        type: "server_error",
        param: null,
        code: null,
      });
    }
    if (status === 401) return openAiWrongKey("sk-revoked-0000");
    if (status === 429) {
      return openAiError(429, {
        message: "Rate limit reached for gpt-4o-mini-transcribe in organization org-fake on requests per min (RPM).",
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

const invalid = (message: string, param: string | null = null) =>
  openAiError(400, { message, type: "invalid_request_error", param, code: null });

/** SpaceXAI's error envelope: `{ code, error }`. */
const xaiError = (status: number, code: string, error: string) => jsonResponse(status, { code, error });

const xai: Flavor = {
  validate(rec, apiKey, maxBytes) {
    if (rec.method !== "POST" || rec.path !== "/v1/stt") return xaiError(404, "Not found", "Not found");
    const key = bearerToken(rec.headers);
    if (key !== apiKey) {
      return xaiError(
        400,
        "Client specified an invalid argument",
        `Incorrect API key provided: ${maskKey(key ?? "")}. You can obtain an API key from https://console.x.ai.`,
      );
    }
    if (rec.bodyBytes > maxBytes) return this.error(413, maxBytes, rec);
    if (!rec.headers["content-type"]?.startsWith("multipart/form-data")) {
      return xaiError(400, "Client specified an invalid argument", "Expected a multipart/form-data request body");
    }
    const names = rec.fields.map((f) => f.name);
    const unknown = names.find((n) => !["file", "format", "language", "diarize"].includes(n));
    if (unknown) return xaiError(400, "Client specified an invalid argument", `Unknown field: ${unknown}`);
    if (!names.includes("file")) return xaiError(400, "Client specified an invalid argument", "Missing field: file");
    // The service starts on the audio as soon as the file part begins: fields after it are never read.
    if (names.at(-1) !== "file") {
      return xaiError(400, "Client specified an invalid argument", "The file must be the last field of the form");
    }
    return null;
  },
  success: (text) =>
    jsonResponse(200, { text, language: "en", duration: 2.4, words: [], request_id: crypto.randomUUID() }),
  error(status) {
    if (status === 413) return xaiError(413, "Payload too large", "The request body is too large");
    if (status === 401) {
      return xaiError(
        400,
        "Client specified an invalid argument",
        "Incorrect API key provided: xa***ev. You can obtain an API key from https://console.x.ai.",
      );
    }
    if (status === 429) return xaiError(429, "Too many requests", "Rate limit exceeded for this team");
    return xaiError(status, "Internal error", "The service is temporarily unavailable");
  },
};

/** Deepgram's error envelope: `{ err_code, err_msg, request_id }`. */
const deepgramError = (status: number, code: string, message: string) =>
  jsonResponse(status, { err_code: code, err_msg: message, request_id: crypto.randomUUID() });

const deepgram: Flavor = {
  validate(rec, apiKey, maxBytes) {
    if (rec.method !== "POST" || rec.path !== "/v1/listen") return deepgramError(404, "Not Found", "Not Found");
    // API keys go as `Token`; `Bearer` is for short-lived JWTs, so a key sent that way is not one.
    const auth = rec.headers.authorization ?? "";
    if (auth !== `Token ${apiKey}`) return deepgramError(401, "INVALID_AUTH", "Invalid credentials.");
    if (rec.bodyBytes > maxBytes) return this.error(413, maxBytes, rec);
    const model = rec.query.model ?? "base";
    if (!DEEPGRAM_MODELS.includes(model)) {
      return deepgramError(
        400,
        "Bad Request",
        "No such model/language/tier combination found. Use the /v1/models endpoint to see available models.",
      );
    }
    const type = rec.headers["content-type"] ?? "";
    if (rec.bodyBytes === 0 || !/^(audio|video)\//.test(type)) {
      return deepgramError(400, "Bad Request", "Bad Request: failed to process audio: corrupt or unsupported data");
    }
    return null;
  },
  success: (text) =>
    jsonResponse(200, {
      metadata: { request_id: crypto.randomUUID(), sha256: ids.hex("", 64), duration: 2.4, channels: 1 },
      results: { channels: [{ alternatives: [{ transcript: text, confidence: 0.98, words: [] }] }] },
    }),
  error(status) {
    if (status === 413) return deepgramError(413, "PAYLOAD_TOO_LARGE", "Payload too large");
    if (status === 401) return deepgramError(401, "INVALID_AUTH", "Invalid credentials.");
    if (status === 429) return deepgramError(429, "TOO_MANY_REQUESTS", "Too many requests. Please try again later");
    return deepgramError(status, "INTERNAL_SERVER_ERROR", "An internal server error occurred");
  },
};
