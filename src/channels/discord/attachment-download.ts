import { defineError } from "../../error.ts";
import { readCapped } from "../../net/read-capped.ts";
import type { AttachmentFetcher } from "./parse-message.ts";

/** Where Discord serves attachments: its CDN and media proxy, over https. */
const DISCORD_CDN_HOSTS = new Set(["cdn.discordapp.com", "media.discordapp.net"]);
const DOWNLOAD_TIMEOUT_MS = 120_000;

export const DiscordFileTooLarge = defineError<{ maxBytes: number; size?: number }>("discord_file_too_large");
export const DiscordDownloadFailed = defineError<{ status?: number }>("discord_download_failed");

/**
 * Downloads an inbound attachment from its CDN URL (public, signed by Discord: no token is sent), refused past the
 * cap before and while reading. Only Discord's CDN hosts are fetched — or the origin of a configured test
 * endpoint (`api_base_url`) — so a payload naming another URL cannot make the daemon fetch it.
 */
export function createAttachmentFetcher(opts: {
  /** The configured api_base_url's origin, when one is set. */
  extraOrigin?: string;
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
}): AttachmentFetcher {
  const send = opts.fetch ?? fetch;
  return async (url, declared, maxBytes) => {
    if (declared !== undefined && declared > maxBytes) throw tooLarge(declared, maxBytes);
    if (!allowed(url, opts.extraOrigin)) {
      throw DiscordDownloadFailed("the attachment is not on Discord's CDN; refusing to fetch it", {});
    }
    let response: Response;
    try {
      response = await send(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    } catch (err) {
      throw DiscordDownloadFailed(`could not download the attachment: ${(err as Error)?.message ?? String(err)}`, {});
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw DiscordDownloadFailed(`the attachment download failed: HTTP ${response.status}`, {
        status: response.status,
      });
    }
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    if (length > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(length, maxBytes);
    }
    const read = await readCapped(response, maxBytes);
    if (read.truncated) throw tooLarge(undefined, maxBytes);
    return read.body;
  };
}

function allowed(url: string, extraOrigin: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (extraOrigin !== undefined && parsed.origin === extraOrigin) return true;
  return parsed.protocol === "https:" && DISCORD_CDN_HOSTS.has(parsed.hostname);
}

function tooLarge(size: number | undefined, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return DiscordFileTooLarge(
    size === undefined
      ? `the Discord attachment is larger than ${mb(maxBytes)}; refusing it`
      : `the Discord attachment is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`,
    { maxBytes, ...(size !== undefined ? { size } : {}) },
  );
}
