import { createHash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { defineError } from "../error.ts";
import { HttpRequestFailed, type JsonAnswer, requestJson } from "../net/json-client.ts";
import { parseReleaseManifest, type ReleaseManifest } from "../release/manifest.ts";

/** A download did not arrive whole: an HTTP error, a refused connection, a cut stream, or too many bytes. */
export const DownloadFailed = defineError<{ url: string; status?: number }>("download_failed");

const MANIFEST_MAX_BYTES = 1024 * 1024;
const BUNDLE_MAX_BYTES = 1024 * 1024;
/** Well above any fermix binary (~115 MB), low enough that a hostile server cannot fill the disk. */
export const BINARY_MAX_BYTES = 512 * 1024 * 1024;
const SMALL_TIMEOUT_MS = 30_000;
/** A whole binary over a slow link; the stall of a dead connection is caught by the server or this. */
const BINARY_TIMEOUT_MS = 15 * 60_000;

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export async function fetchManifest(url: string, fetch: Fetch): Promise<ReleaseManifest> {
  const answer = await fetchSmall(url, fetch, MANIFEST_MAX_BYTES, "the release manifest");
  if (!answer.json) {
    throw DownloadFailed(`${url} did not answer with JSON; is FERMIX_RELEASES_URL the address of releases.json?`, {
      url,
    });
  }
  return parseReleaseManifest(answer.body, url);
}

/** The signature bundle: small JSON, required — a missing one is a refusal, never "unsigned is fine". */
export async function fetchBundle(url: string, fetch: Fetch): Promise<unknown> {
  const answer = await fetchSmall(url, fetch, BUNDLE_MAX_BYTES, "the signature bundle");
  if (!answer.json) throw DownloadFailed(`the signature bundle at ${url} is not JSON`, { url });
  return answer.body;
}

/**
 * Streams `url` into `file` (created 0700, must not exist), hashing as it goes. A body shorter than its
 * Content-Length is a truncated download; a longer one than BINARY_MAX_BYTES is cut off and refused.
 */
export async function downloadTo(
  url: string,
  file: string,
  fetch: Fetch,
  onProgress?: (received: number, total?: number) => void,
): Promise<{ sha256: string; bytes: number }> {
  const response = await request(url, fetch, "the release binary", BINARY_TIMEOUT_MS);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  const total = Number.isFinite(declared) ? declared : undefined;
  if (total !== undefined && total > BINARY_MAX_BYTES) {
    await response.body?.cancel();
    throw DownloadFailed(`${url} is ${total} bytes, more than a fermix binary can be; refusing it`, { url });
  }
  const hash = createHash("sha256");
  const fd = openSync(file, "wx", 0o700);
  let received = 0;
  try {
    const reader = response.body!.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw DownloadFailed(`the download from ${url} was cut after ${received} bytes: ${(err as Error).message}`, {
          url,
        });
      }
      if (chunk.done) break;
      received += chunk.value.byteLength;
      if (received > BINARY_MAX_BYTES) {
        await reader.cancel();
        throw DownloadFailed(`${url} sent more than ${BINARY_MAX_BYTES} bytes; refusing it`, { url });
      }
      hash.update(chunk.value);
      writeSync(fd, chunk.value);
      onProgress?.(received, total);
    }
  } finally {
    closeSync(fd);
  }
  if (total !== undefined && received !== total) {
    throw DownloadFailed(`the download from ${url} was truncated: ${received} of ${total} bytes arrived`, { url });
  }
  return { sha256: hash.digest("hex"), bytes: received };
}

/**
 * The manifest and the bundle: small JSON from the release host the owner configured, so the JSON client
 * rather than the outbound door. A GET of a static file is safe to repeat, so a CDN's passing 502/503/504
 * gets one more try inside the same deadline; a refused connection or a timeout does not.
 */
async function fetchSmall(url: string, fetch: Fetch, max: number, what: string): Promise<JsonAnswer> {
  let answer: JsonAnswer;
  try {
    answer = await requestJson(
      url,
      { timeoutMs: SMALL_TIMEOUT_MS, maxBytes: max, retry: { statuses: [502, 503, 504], delayMs: 500 } },
      { fetch },
    );
  } catch (err) {
    if (!HttpRequestFailed.is(err)) throw err;
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    if (err.data.kind === "too_large") {
      throw DownloadFailed(`${what} at ${url} is larger than ${max} bytes; refusing it`, { url });
    }
    if (err.data.kind === "cut") throw DownloadFailed(`reading ${what} from ${url} failed: ${cause}`, { url });
    throw unreachable(url, what, cause);
  }
  if (!answer.ok) throw httpFailed(url, what, answer.status);
  if (answer.empty) throw DownloadFailed(`${what} at ${url} came back empty`, { url });
  return answer;
}

async function request(url: string, fetch: Fetch, what: string, timeoutMs: number): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw unreachable(url, what, (err as Error).message);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw httpFailed(url, what, response.status);
  }
  if (!response.body) throw DownloadFailed(`${what} at ${url} came back empty`, { url });
  return response;
}

function unreachable(url: string, what: string, why: string) {
  return DownloadFailed(
    `could not reach ${url} for ${what}: ${why}. Check the network, or FERMIX_RELEASES_URL / [fermix_core.upgrade] releases_url`,
    { url },
  );
}

function httpFailed(url: string, what: string, status: number) {
  const hint = status === 404 ? " (not found: the release may have been withdrawn, or the URL is wrong)" : "";
  return DownloadFailed(`${what} at ${url} answered HTTP ${status}${hint}`, { url, status });
}
