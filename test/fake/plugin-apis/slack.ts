import { bearer, json, record, type Seen } from "./recorder.ts";

/**
 * A Slack Web API fake: conversations.list paged by `cursor` / `response_metadata.next_cursor` (the last page
 * answers an empty cursor), users.info, and Slack's error style — HTTP 200 with `{"ok":false,"error":…}`.
 */
export function fakeSlack(opts: { token: string; channels: number; pageSize: number }) {
  const seen: Seen[] = [];
  const channels = Array.from({ length: opts.channels }, (_, i) => ({
    id: `C${String(i + 1).padStart(10, "0")}`,
    name: `channel-${i + 1}`,
    is_channel: true,
    is_private: i % 3 === 0,
    is_archived: false,
    is_member: i % 2 === 0,
    created: 1_700_000_000 + i,
    creator: "U0000000001",
    num_members: 10 + i,
    topic: { value: `topic ${i + 1}`, creator: "U0000000001", last_set: 0 },
    purpose: { value: "", creator: "", last_set: 0 },
    previous_names: [],
  }));

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.token) return json({ ok: false, error: "invalid_auth" });
    if (req.path === "/api/conversations.list") {
      // Slack cursors are opaque base64; this one encodes the offset of the next page.
      const cursor = req.query.get("cursor");
      const start = cursor ? Number(atob(cursor).split(":")[1]) : 0;
      const limit = Math.min(Number(req.query.get("limit") ?? 100), opts.pageSize);
      const page = channels.slice(start, start + limit);
      const next = start + limit < channels.length ? btoa(`next:${start + limit}`) : "";
      return json({ ok: true, channels: page, response_metadata: { next_cursor: next } });
    }
    if (req.path === "/api/users.info") {
      const user = req.query.get("user");
      if (user !== "U0000000001") return json({ ok: false, error: "user_not_found" });
      return json({ ok: true, user: { id: user, team_id: "T1", name: "ada", real_name: "Ada L", is_bot: false } });
    }
    return json({ ok: false, error: "unknown_method", req_method: req.path.replace("/api/", "") }, 404);
  };
  return { handler, seen };
}
