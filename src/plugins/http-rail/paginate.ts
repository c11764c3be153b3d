import type { ToolResult } from "../../capabilities/tool.ts";
import { redact } from "../../observability/redact.ts";
import { MAX_PAGES_CAP, type ManifestRequest } from "../manifest/schema.ts";
import { isRecord } from "../manifest/templates.ts";
import type { BuiltRequest } from "./build-request.ts";
import { atPath, MISSING, pickFields } from "./response-shape.ts";

export type Paginate = NonNullable<ManifestRequest["paginate"]>;

/** One page as the caller fetched it: parsed JSON and its size, or the error result that ends the call. */
export type Fetched = { ok: true; json: unknown; bytes: number } | { ok: false; result: ToolResult };

export type Paged = { items: unknown[]; truncated: boolean };

/** Across all pages of one call; a single page is capped at 5 MiB by the door. */
export const MAX_TOTAL_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_PAGES = 10;

/**
 * Fetches pages until the API says there are no more, `max_pages` is reached (then `truncated`), or the 10 MiB budget
 * runs out (the page that crossed it is dropped, `truncated`). A first page without the item list is returned as
 * is (an API error shape such as Slack's `{"ok":false}`), so the model sees what the API said.
 */
export async function collectPages(
  tool: string,
  first: BuiltRequest,
  spec: Paginate,
  fields: readonly string[] | undefined,
  fetchPage: (request: BuiltRequest) => Promise<Fetched>,
): Promise<{ ok: true; value: unknown } | { ok: false; result: ToolResult }> {
  const maxPages = Math.min(spec.max_pages ?? DEFAULT_MAX_PAGES, MAX_PAGES_CAP);
  const items: unknown[] = [];
  const seen = new Set<string>();
  let request = first;
  let total = 0;
  for (let page = 1; ; page++) {
    const got = await fetchPage(request);
    if (!got.ok) return got;
    total += got.bytes;
    if (total > MAX_TOTAL_BYTES) return done(items, true);
    const list = atPath(got.json, spec.items_path);
    if (!Array.isArray(list)) {
      if (page === 1) return { ok: true, value: got.json };
      const where = spec.items_path ?? "the top level";
      const shown = redact(JSON.stringify(got.json)).slice(0, 2048);
      return {
        ok: false,
        result: { content: `${tool}: page ${page} has no list at ${where}: ${shown}`, isError: true },
      };
    }
    items.push(...(pickFields(list, fields) as unknown[]));

    const next = spec.mode === "cursor" ? atPath(got.json, spec.cursor_path) : lastId(list, spec.id_field ?? "id");
    // An empty-string cursor is how Slack says "no more"; a cursor seen before would only loop.
    const cursor = typeof next === "string" || typeof next === "number" ? String(next) : "";
    const more = cursor !== "" && !seen.has(cursor) && (spec.mode === "cursor" || list.length > 0);
    if (!more) return done(items, false);
    if (page >= maxPages || spec.cursor_param === undefined) return done(items, true);
    seen.add(cursor);
    request = withCursor(first, spec, spec.cursor_param, next as string | number);
  }
}

function done(items: unknown[], truncated: boolean) {
  return { ok: true as const, value: { items, truncated } satisfies Paged };
}

function lastId(list: unknown[], field: string): unknown {
  const last = list.at(-1);
  if (!isRecord(last)) return MISSING;
  return atPath(last, field);
}

/** The first request again with the cursor added: always from the first, so cursors never pile up. */
function withCursor(first: BuiltRequest, spec: Paginate, param: string, cursor: string | number): BuiltRequest {
  if (spec.cursor_in === "body") {
    const parsed = first.body === undefined ? {} : JSON.parse(first.body);
    const body = isRecord(parsed) ? { ...parsed, [param]: cursor } : { [param]: cursor };
    const headers = { ...first.headers };
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
      headers["Content-Type"] = "application/json";
    return { ...first, headers, body: JSON.stringify(body) };
  }
  const url = new URL(first.url);
  url.searchParams.set(param, String(cursor));
  return { ...first, url: url.href };
}
