import { bearer, json, record, type Seen } from "./recorder.ts";

const VERSION = "2025-09-03";

/**
 * A Notion API fake: search and block children paged by `start_cursor` / `next_cursor` (null on the last page,
 * with `has_more`), page creation and block appends. Every request must carry Notion-Version, as the real API
 * demands; errors are Notion's `{object: "error", status, code, message, request_id}`.
 */
export function fakeNotion(opts: { token: string; pages?: number; blocks?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "restricted" | "rate_limited",
    pages: Array.from({ length: opts.pages ?? 0 }, (_, i) => pageOf(uuid(i + 1), `Note ${i + 1}`)),
    blocks: Array.from({ length: opts.blocks ?? 0 }, (_, i) => paragraph(uuid(1000 + i), `line ${i + 1}`)),
    created: [] as Array<Record<string, unknown>>,
  };

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    const version = req.headers.get("notion-version");
    if (version === null) {
      const message = "Notion-Version header failed validation: Notion-Version header should be defined.";
      return error(400, "missing_version", message);
    }
    if (bearer(req) !== opts.token) return error(401, "unauthorized", "API token is invalid.");
    if (state.mode === "restricted")
      return error(403, "restricted_resource", "Insufficient permissions for this endpoint.");
    if (state.mode === "rate_limited") {
      const message = "You have been rate limited. Please try again in a few minutes.";
      return error(429, "rate_limited", message, { "retry-after": "12" });
    }

    if (req.method === "POST" && req.path === "/v1/search") {
      const input = JSON.parse(req.body || "{}");
      const hits = state.pages.filter((p) => !input.query || titleOf(p).includes(input.query));
      return json(list(hits, input.start_cursor, input.page_size ?? 100, "page_or_data_source"));
    }
    const children = /^\/v1\/blocks\/([^/]+)\/children$/.exec(req.path);
    if (req.method === "GET" && children) {
      const size = Number(req.query.get("page_size") ?? 100);
      return json(list(state.blocks, req.query.get("start_cursor") ?? undefined, size, "block"));
    }
    if (req.method === "PATCH" && children) {
      const input = JSON.parse(req.body || "{}");
      if (!Array.isArray(input.children)) return error(400, "validation_error", "body.children should be defined.");
      const added = input.children.map((b: Record<string, unknown>, i: number) => ({
        object: "block",
        id: uuid(5000 + state.blocks.length + i),
        parent: { type: "block_id", block_id: children[1] },
        has_children: false,
        ...b,
      }));
      state.blocks.push(...added);
      return json({ object: "list", results: added, next_cursor: null, has_more: false, type: "block", block: {} });
    }
    if (req.method === "POST" && req.path === "/v1/pages") {
      const input = JSON.parse(req.body || "{}");
      const page = { ...pageOf(uuid(9000 + state.created.length), ""), parent: { type: "page_id", ...input.parent } };
      page.properties = input.properties;
      state.created.push({ ...page, children: input.children });
      return json(page);
    }
    const id = /^\/v1\/pages\/([^/]+)$/.exec(req.path)?.[1] ?? "";
    const message = `Could not find page with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`;
    return error(404, "object_not_found", message);
  };
  return { handler, seen, state, version: VERSION };
}

/** Notion cursors are the id of the next item; the last page says `next_cursor: null, has_more: false`. */
function list(all: Array<{ id: string }>, cursor: string | undefined, size: number, type: string) {
  const start = cursor ? all.findIndex((x) => x.id === cursor) : 0;
  const results = all.slice(Math.max(start, 0), Math.max(start, 0) + size);
  const next = all[Math.max(start, 0) + size];
  return { object: "list", results, next_cursor: next?.id ?? null, has_more: !!next, type, [type]: {} };
}

function error(status: number, code: string, message: string, headers?: Record<string, string>) {
  return json(
    { object: "error", status, code, message, request_id: "8c3f2a1e-0d4b-4f5e-9a6b-7c8d9e0f1a2b" },
    status,
    headers,
  );
}

function uuid(n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `1f0c2e4a-7b3d-80a1-9c5e-${hex}`;
}

function pageOf(id: string, title: string) {
  return {
    object: "page",
    id,
    created_time: "2025-05-01T08:00:00.000Z",
    last_edited_time: "2025-05-02T08:00:00.000Z",
    archived: false,
    in_trash: false,
    url: `https://www.notion.so/${id.replaceAll("-", "")}`,
    parent: { type: "workspace", workspace: true } as Record<string, unknown>,
    properties: {
      title: { id: "title", type: "title", title: [{ type: "text", text: { content: title }, plain_text: title }] },
    } as unknown,
  };
}

function titleOf(page: ReturnType<typeof pageOf>): string {
  return (page.properties as { title: { title: Array<{ plain_text: string }> } }).title.title[0]?.plain_text ?? "";
}

function paragraph(id: string, text: string) {
  return {
    object: "block",
    id,
    type: "paragraph",
    has_children: false,
    paragraph: { rich_text: [{ type: "text", text: { content: text }, plain_text: text }], color: "default" },
  };
}
