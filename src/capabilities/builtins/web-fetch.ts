import * as v from "valibot";
import { NetBlocked, NetFailed } from "../../net/net-error.ts";
import type { GuardedFetch, GuardedResponse } from "../../net/types.ts";
import { lazySchema } from "../../valibot-lazy.ts";
import { VERSION } from "../../version.ts";
import { decodeText, mediaType } from "./response-text.ts";

const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS = 100_000;
const ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5";

export type WebFetchContext = { net: GuardedFetch; signal: AbortSignal; log: { warn(...args: unknown[]): void } };

export const WebFetchArgs = lazySchema(() =>
  v.object({
    url: v.pipe(v.string(), v.url(), v.description("The http or https URL to read.")),
    max_chars: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(100),
        v.maxValue(MAX_CHARS),
        v.description(`Most characters to return (default ${DEFAULT_MAX_CHARS}, at most ${MAX_CHARS}).`),
      ),
    ),
  }),
);
export type WebFetchArgs = v.InferOutput<typeof WebFetchArgs>;

export const webFetchTool = {
  name: "web_fetch",
  description:
    "Read a public web page or API URL: HTML as Markdown (the article alone when there is one), JSON and plain text as is.",
  policy: "network" as const,
  readOnly: true,
  parameters: WebFetchArgs,
  help: "A page with an article comes back as that article alone (title, byline and date on top; no menus, sidebars, ads or comments); other pages as their visible text. Only public internet addresses are reachable: localhost, private networks and cloud metadata are refused, also after redirects. Bodies over 5 MiB are cut; output is capped at max_chars. Pages that render only with JavaScript come back nearly empty.",
  async execute(args: WebFetchArgs, ctx: WebFetchContext): Promise<{ content: string; isError?: boolean }> {
    let response: GuardedResponse;
    try {
      response = await ctx.net(args.url, {
        headers: { accept: ACCEPT, "user-agent": `fermix/${VERSION}` },
        signal: ctx.signal,
      });
    } catch (err) {
      return { isError: true, content: explainFailure(err, args.url, ctx.signal) };
    }
    if (response.status >= 400) return { isError: true, content: await explainStatus(response) };
    return { content: await render(response, args.max_chars ?? DEFAULT_MAX_CHARS) };
  },
};

async function render(response: GuardedResponse, maxChars: number): Promise<string> {
  const contentType = response.headers.get("content-type") ?? "";
  const kind = classify(mediaType(contentType), response.body);
  const notes: string[] = [];
  if (response.truncated) {
    notes.push(`The response was larger than ${formatSize(response.body.byteLength)}; only that much was read.`);
  }
  if (kind === "binary") {
    const type = mediaType(contentType) || "an unknown type";
    return `${response.url} is ${type} (${formatSize(response.body.byteLength)}${response.truncated ? " or more" : ""}). web_fetch shows only HTML, JSON and text.`;
  }
  let text: string;
  if (kind === "html") {
    const page = (await loadReader()).readableText(decodeText(response.body, contentType, true), response.url);
    const header = [
      page.title && `Title: ${page.title}`,
      `URL: ${response.url}`,
      page.byline && `Byline: ${page.byline}`,
      page.published && `Published: ${page.published}`,
    ];
    text = `${header.filter(Boolean).join("\n")}\n\n${page.text}`;
    if (page.text === "") notes.push("The page has no readable text; it may need JavaScript to render.");
    if (page.cut) notes.push("The page's markup nests too deeply to read whole; only its first part was read.");
  } else {
    // JSON and plain text are returned verbatim: the model may need to parse them exactly.
    text = decodeText(response.body, contentType, false);
  }
  if (text.length > maxChars) {
    const more =
      maxChars < MAX_CHARS
        ? `Call web_fetch again with a larger max_chars (up to ${MAX_CHARS}) to see more.`
        : "That is the most web_fetch returns at once.";
    notes.unshift(`Truncated: showing the first ${maxChars} of ${text.length} characters. ${more}`);
    text = text.slice(0, maxChars);
  }
  return notes.length === 0 ? text : `${text}\n\n${notes.map((note) => `[${note}]`).join("\n")}`;
}

// The HTML reader pulls in linkedom, Readability and turndown; `fermix ask` and the daemon import this file on their
// start path, so those load on the first page rendered instead.
const loadReader = () => import("./readable-text.ts");

type Kind = "html" | "json" | "text" | "binary";

function classify(type: string, body: Uint8Array): Kind {
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/") || type === "application/xml" || type.endsWith("+xml")) return "text";
  if (type !== "" && type !== "application/octet-stream") return "binary";
  // No usable type: look at the bytes, as a browser would before giving up.
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return "binary";
  const start = new TextDecoder().decode(head).trimStart().slice(0, 15).toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "html";
  return type === "" ? "text" : "binary";
}

function explainFailure(err: unknown, url: string, signal: AbortSignal): string {
  if (signal.aborted) return `The fetch of ${url} was cancelled.`;
  if (NetBlocked.is(err)) {
    if (err.data.rule === "redirect_limit") {
      return `Blocked: ${err.message}. The site redirects in a loop or too often; try the final address directly.`;
    }
    return `Blocked: ${err.message}. web_fetch only reaches public internet addresses (no localhost, private networks or cloud metadata), with no credentials in the URL; use a public http(s) URL.`;
  }
  if (NetFailed.is(err)) {
    switch (err.data.kind) {
      case "timeout":
        return `Timed out: ${err.message}. The site may be slow or down; try again later or use another source.`;
      case "dns":
        return `Not found: ${err.message}. Check the host name for typos, or search for the page with web_search.`;
      default:
        return `Could not connect: ${err.message}. The site may be down; try again later or use another source.`;
    }
  }
  return `web_fetch failed for ${url}: ${err instanceof Error ? err.message : String(err)}`;
}

const STATUS_ADVICE: Record<number, string> = {
  401: "The page needs a login; web_fetch cannot sign in. Try a public source instead.",
  403: "The site refused access (it may block automated clients or need a login). Try another source.",
  404: "The page does not exist. Check the URL, or find the right one with web_search.",
  410: "The page was removed. Find another source with web_search.",
  429: "The site is rate-limiting requests. Wait before retrying, or use another source.",
};

async function explainStatus(response: GuardedResponse): Promise<string> {
  const advice =
    STATUS_ADVICE[response.status] ??
    (response.status >= 500
      ? "The server failed; try again later or use another source."
      : "The server refused the request; check the URL.");
  const contentType = response.headers.get("content-type") ?? "";
  const raw = decodeText(response.body, contentType, true);
  const said = (
    classify(mediaType(contentType), response.body) === "html"
      ? (await loadReader()).readableText(raw, response.url).text
      : raw
  )
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
  return `HTTP ${response.status} from ${response.url}. ${advice}${said ? `\nThe server said: ${said}` : ""}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
