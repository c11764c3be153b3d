import { readCapped } from "../../net/read-capped.ts";
import { type TranscriptionDeps, TranscriptionFailed, TranscriptionTooLarge } from "./transcription-types.ts";

/** A transcription of a few minutes of audio takes seconds; past this the call is a failure, not a wait. */
export const TRANSCRIPTION_TIMEOUT_MS = 120_000;
/**
 * The most of one answer read: a transcript with word timings (Deepgram's) is some hundred KB for a long clip.
 * A good answer past this is refused unparsed (TranscriptionFailed, the limit named); an error answer is cut
 * there and only its start shown.
 */
export const MAX_TRANSCRIPTION_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * One POST to a speech-to-text service, its JSON answer parsed. Every failure becomes a FermixError whose
 * message names the service and what it said (for the log; the sender gets the fixed sentence).
 */
export async function postForJson(
  backend: string,
  url: string,
  init: { headers: Record<string, string>; body: FormData | Uint8Array<ArrayBuffer> },
  deps: TranscriptionDeps,
  sizeLimit?: (body: any, text: string) => number | undefined,
): Promise<any> {
  let response: Response;
  try {
    response = await deps.fetch(url, {
      method: "POST",
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(deps.timeoutMs ?? TRANSCRIPTION_TIMEOUT_MS),
    });
  } catch (err) {
    throw TranscriptionFailed(`${backend} transcription could not be reached: ${(err as Error).message}`, { backend });
  }
  const maxBytes = deps.maxAnswerBytes ?? MAX_TRANSCRIPTION_ANSWER_BYTES;
  let read: { body: Uint8Array; truncated: boolean };
  try {
    read = await readCapped(response, maxBytes);
  } catch (err) {
    throw TranscriptionFailed(`${backend}'s answer broke off: ${(err as Error).message}`, {
      backend,
      status: response.status,
    });
  }
  if (read.truncated && response.ok) {
    throw TranscriptionFailed(`${backend}'s answer is larger than ${maxBytes} bytes; refusing it`, {
      backend,
      status: response.status,
    });
  }
  const text = new TextDecoder().decode(read.body);
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.status === 413) {
    throw TranscriptionTooLarge(`${backend} refused the file as too large: ${vendorMessage(body, text)}`, {
      backend,
      limitBytes: sizeLimit?.(body, text),
    });
  }
  if (!response.ok) {
    throw TranscriptionFailed(
      `${backend} transcription failed (HTTP ${response.status}): ${vendorMessage(body, text)}`,
      {
        backend,
        status: response.status,
      },
    );
  }
  if (body === undefined) {
    throw TranscriptionFailed(`${backend} answered with something that is not JSON`, {
      backend,
      status: response.status,
    });
  }
  return body;
}

/** The service's own words: OpenAI `error.message`, xAI `error`, Deepgram `err_msg`. */
function vendorMessage(body: any, text: string): string {
  const message = body?.error?.message ?? body?.err_msg ?? (typeof body?.error === "string" ? body.error : undefined);
  return typeof message === "string" ? message : text.slice(0, 200) || "no details";
}

/** A file name whose extension tells the service the format (OpenAI decides by it; Telegram voice is .oga). */
export function audioFilename(clip: { mime: string; filename?: string }): string {
  if (clip.filename && /\.\w{2,5}$/.test(clip.filename)) return clip.filename;
  const ext = EXTENSIONS[clip.mime.split(";")[0]!.trim().toLowerCase()] ?? "ogg";
  return `${clip.filename ?? "voice"}.${ext}`;
}

const EXTENSIONS: Record<string, string> = {
  "audio/ogg": "ogg",
  "audio/opus": "ogg",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mp4": "m4a",
  "audio/m4a": "m4a",
  "audio/x-m4a": "m4a",
  "audio/aac": "m4a",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/webm": "webm",
  "audio/flac": "flac",
  "video/mp4": "mp4",
  "video/webm": "webm",
};
