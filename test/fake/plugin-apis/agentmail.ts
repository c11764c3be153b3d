import { bearer, json, record, type Seen } from "./recorder.ts";

/**
 * An AgentMail v0 fake: inboxes and an inbox's messages, both paged by `page_token` / `next_page_token` (absent on
 * the last page) under `{count, limit, ...}`; inbox creation, send and reply answering `{message_id, thread_id}`.
 * Inbox ids are addresses, so they arrive percent-encoded in the path. Errors are `{name, code?, message}`.
 */
export function fakeAgentMail(opts: { key: string; inboxes?: number; messages?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "no_send_permission" | "rate_limited",
    inboxes: Array.from({ length: opts.inboxes ?? 0 }, (_, i) => inboxOf(`agent${i + 1}`)),
    messages: Array.from({ length: opts.messages ?? 0 }, (_, i) =>
      messageOf(i + 1, i % 2 === 0 ? ["received", "unread"] : ["received"]),
    ),
    sent: [] as Array<Record<string, unknown>>,
  };

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.key) {
      return error(401, "UnauthorizedError", "The API key was not recognized.", "unknown_api_key");
    }
    if (state.mode === "rate_limited") {
      return error(429, "RateLimitError", "Too many requests.", "rate_limited", { "retry-after": "5" });
    }
    const sending = /\/messages\/(send|[^/]+\/reply)$/.test(req.path);
    if (state.mode === "no_send_permission" && req.method === "POST" && sending) {
      return error(403, "ForbiddenError", "Missing required permission: message_send", "missing_permission");
    }

    if (req.path === "/v0/inboxes" && req.method === "GET") return json(page("inboxes", state.inboxes, req.query));
    if (req.path === "/v0/inboxes" && req.method === "POST") {
      const input = JSON.parse(req.body || "{}");
      const inbox = inboxOf(input.username ?? "k7x2q9", input.domain, input.display_name, input.client_id);
      state.inboxes.push(inbox);
      return json(inbox);
    }
    const m = /^\/v0\/inboxes\/([^/]+)\/messages(?:\/(send)|\/([^/]+)(\/reply)?)?$/.exec(req.path);
    if (!m) return error(404, "NotFoundError", "Route not found");
    const inboxId = decodeURIComponent(m[1]!);
    if (!state.inboxes.some((i) => i.inbox_id === inboxId)) return error(404, "NotFoundError", "Inbox not found");
    if (req.method === "GET" && !m[2] && !m[3]) {
      const labels = req.query.getAll("labels");
      const matching = state.messages.filter((msg) => labels.every((l) => msg.labels.includes(l)));
      return json(page("messages", matching, req.query));
    }
    if (req.method === "POST" && (m[2] || m[4])) {
      const input = JSON.parse(req.body || "{}");
      const sent = {
        message_id: `<0100019${state.sent.length}abc@email.amazonses.com>`,
        thread_id: `thr-${state.sent.length + 1}`,
      };
      state.sent.push({ inboxId, replyTo: m[3] ? decodeURIComponent(m[3]) : undefined, ...input, ...sent });
      return json(sent);
    }
    return error(404, "NotFoundError", "Message not found");
  };
  return { handler, seen, state };
}

/** The page token is opaque to clients; here it is the offset of the next item. */
function page<T>(key: string, all: T[], query: URLSearchParams) {
  const limit = Number(query.get("limit") ?? 10);
  const start = Number(query.get("page_token") ?? 0);
  const items = all.slice(start, start + limit);
  const body: Record<string, unknown> = { count: items.length, limit };
  if (start + limit < all.length) body.next_page_token = String(start + limit);
  body[key] = items;
  return body;
}

function inboxOf(username: string, domain = "agentmail.to", display_name?: string, client_id?: string) {
  const address = `${username}@${domain}`;
  return {
    pod_id: "pod_default",
    inbox_id: address,
    email: address,
    ...(display_name ? { display_name } : {}),
    ...(client_id ? { client_id } : {}),
    updated_at: "2025-06-01T12:00:00.000Z",
    created_at: "2025-06-01T12:00:00.000Z",
  };
}

function messageOf(n: number, labels: string[]) {
  return {
    inbox_id: "agent1@agentmail.to",
    thread_id: `thr-in-${n}`,
    message_id: `<in-${n}@mail.example.com>`,
    labels,
    timestamp: "2025-06-01T12:00:00.000Z",
    from: "Bob <bob@example.com>",
    to: ["agent1@agentmail.to"],
    subject: `Hello ${n}`,
    preview: "Are we still on for",
    size: 2048,
    updated_at: "2025-06-01T12:00:00.000Z",
    created_at: "2025-06-01T12:00:00.000Z",
  };
}

function error(status: number, name: string, message: string, code?: string, headers?: Record<string, string>) {
  return json({ name, ...(code ? { code } : {}), message }, status, headers);
}
