import {
  googleError,
  googleRateLimited,
  googleScopeInsufficient,
  googleUnauthenticated,
  offsetOf,
  pageToken,
} from "./google-error.ts";
import { bearer, json, record, type Seen } from "./recorder.ts";

const BASE = "/calendar/v3";

/**
 * A Google Calendar v3 fake: calendarList and events.list paged by `pageToken` (the last page carries
 * `nextSyncToken` instead of `nextPageToken`, as Google does), events.insert answering 200 with the event, and
 * events.delete answering 204 with no body. `mode` makes every request fail one of Google's ways.
 */
export function fakeGoogleCalendar(opts: { token: string; calendars?: number; events?: number; listPage?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "scope" | "rate_limited" | "not_writer",
    retryAfter: undefined as string | undefined,
    events: Array.from({ length: opts.events ?? 0 }, (_, i) => eventOf(`ev${i + 1}`, `Standup ${i + 1}`, i)),
  };
  const calendars = Array.from({ length: opts.calendars ?? 1 }, (_, i) => ({
    kind: "calendar#calendarListEntry",
    etag: `"${1700000000000 + i}"`,
    id: i === 0 ? "ada@example.com" : `team${i}@group.calendar.google.com`,
    summary: i === 0 ? "ada@example.com" : `Team ${i}`,
    timeZone: "Europe/Paris",
    colorId: "14",
    accessRole: i === 0 ? "owner" : "reader",
    defaultReminders: [],
    ...(i === 0 ? { primary: true } : {}),
  }));

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.token) return googleUnauthenticated();
    if (state.mode === "scope") return googleScopeInsufficient("calendar-json.googleapis.com", methodOf(req));
    if (state.mode === "rate_limited") return googleRateLimited(state.retryAfter);
    if (state.mode === "not_writer" && req.method !== "GET") {
      return googleError(403, "requiredAccessLevel", "You need to have writer access to this calendar.");
    }

    if (req.method === "GET" && req.path === `${BASE}/users/me/calendarList`) {
      return json(page("calendar#calendarList", calendars, req.query, opts.listPage ?? 100));
    }
    const events = new RegExp(`^${BASE}/calendars/([^/]+)/events(?:/([^/]+))?$`).exec(req.path);
    if (events && req.method === "GET" && !events[2]) {
      const extra = { summary: decodeURIComponent(events[1]!), timeZone: "Europe/Paris", accessRole: "owner" };
      return json({ ...page("calendar#events", state.events, req.query, 250), ...extra });
    }
    if (events && req.method === "POST" && !events[2]) {
      const input = JSON.parse(req.body || "{}");
      if (!input.start || !input.end)
        return googleError(400, "required", "Missing time zone definition for start time.");
      const event = { ...eventOf(`created${state.events.length + 1}`, input.summary, 0), ...input };
      state.events.push(event);
      return json(event);
    }
    if (events && req.method === "DELETE" && events[2]) {
      const at = state.events.findIndex((e) => e.id === events[2]);
      if (at < 0) return googleError(410, "deleted", "Resource has been deleted");
      state.events.splice(at, 1);
      return new Response(null, { status: 204 });
    }
    return googleError(404, "notFound", "Not Found");
  };
  return { handler, seen, state };
}

/** One page of a Google list: `maxResults` from the query (capped by the API's own maximum). */
function page(kind: string, all: unknown[], query: URLSearchParams, cap: number) {
  const size = Math.min(Number(query.get("maxResults") ?? cap), cap);
  const start = offsetOf(query.get("pageToken"));
  const items = all.slice(start, start + size);
  const more = start + size < all.length;
  const tail = more ? { nextPageToken: pageToken(start + size) } : { nextSyncToken: "CPDAlvWDx70CEPDAlvWDx70CGAU=" };
  return { kind, etag: '"p33k8cd3u4ag0g"', ...tail, items };
}

function eventOf(id: string, summary: string, day: number) {
  const date = new Date(Date.UTC(2025, 5, 2 + day, 9)).toISOString().replace(".000Z", "+00:00");
  const end = new Date(Date.UTC(2025, 5, 2 + day, 9, 30)).toISOString().replace(".000Z", "+00:00");
  return {
    kind: "calendar#event",
    id,
    status: "confirmed",
    htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
    summary,
    start: { dateTime: date, timeZone: "Europe/Paris" },
    end: { dateTime: end, timeZone: "Europe/Paris" },
    organizer: { email: "ada@example.com", self: true },
  } as Record<string, unknown>;
}

function methodOf(req: Seen): string {
  if (req.method === "POST") return "calendar.v3.Events.Insert";
  if (req.method === "DELETE") return "calendar.v3.Events.Delete";
  return req.path.includes("calendarList") ? "calendar.v3.CalendarList.List" : "calendar.v3.Events.List";
}
