import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeGoogleCalendar } from "../../fake/plugin-apis/google-calendar.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { GOOGLEAPIS_IP, hostDoor } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const TOKEN = "ya29.a0AfB_calendar-test-token-0123456789abcdef";
const READ = "https://www.googleapis.com/auth/calendar.readonly";
const WRITE = "https://www.googleapis.com/auth/calendar.events";
const serve = useFakeServers();
const plugin = pluginOf("google_calendar");

function setup(opts: { calendars?: number; events?: number; listPage?: number } = {}) {
  const calendar = fakeGoogleCalendar({ token: TOKEN, ...opts });
  const { origin } = serve(calendar.handler);
  return { calendar, net: hostDoor({ [GOOGLEAPIS_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = TOKEN,
) {
  return callHttpTool({ plugin, tool: catalogTool("google_calendar", tool), args, credential, net });
}

const NEW_EVENT = { summary: "Review", start: "2025-06-03T10:00:00+02:00", end: "2025-06-03T11:00:00+02:00" };

describe("google_calendar reads", () => {
  test("calendarList pages by pageToken until nextSyncToken; extract.fields keeps the listed ones", async () => {
    const { calendar, net } = setup({ calendars: 5, listPage: 2 });
    const out = JSON.parse((await call(net, "google_calendar_list_calendars", {})).content);
    expect(out.truncated).toBe(false);
    expect(out.items).toHaveLength(5);
    expect(out.items[0]).toEqual({
      id: "ada@example.com",
      summary: "ada@example.com",
      primary: true,
      timeZone: "Europe/Paris",
      accessRole: "owner",
    });
    expect(out.items.map((c: { id: string }) => c.id).slice(1)).toEqual(
      [1, 2, 3, 4].map((i) => `team${i}@group.calendar.google.com`),
    );
    expect(calendar.seen).toHaveLength(3);
    expect(calendar.seen.map((r) => r.path)).toEqual(Array(3).fill("/calendar/v3/users/me/calendarList"));
    expect(calendar.seen[0]!.query.get("pageToken")).toBeNull();
    expect(calendar.seen[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  test("events.list: expanded, ordered by start, calendarId defaults to primary; max_pages 4 truncates", async () => {
    const { calendar, net } = setup({ events: 9 });
    const args = { timeMin: "2025-06-01T00:00:00Z", maxResults: 2, q: "standup" };
    const out = JSON.parse((await call(net, "google_calendar_list_events", args)).content);
    expect(out.truncated).toBe(true);
    expect(out.items.map((e: { id: string }) => e.id)).toEqual([
      "ev1",
      "ev2",
      "ev3",
      "ev4",
      "ev5",
      "ev6",
      "ev7",
      "ev8",
    ]);
    expect(calendar.seen).toHaveLength(4);
    const [first, second] = calendar.seen;
    expect(first!.path).toBe("/calendar/v3/calendars/primary/events");
    expect(first!.query.toString()).toBe(
      "timeMin=2025-06-01T00%3A00%3A00Z&q=standup&maxResults=2&singleEvents=true&orderBy=startTime",
    );
    expect(second!.query.get("pageToken")).not.toBeNull();
    expect(second!.query.get("timeMin")).toBe("2025-06-01T00:00:00Z"); // the cursor joins the first query, not replaces it
  });
});

describe("google_calendar writes", () => {
  test("events.insert: POST with the event body and sendUpdates=none by default", async () => {
    const { calendar, net } = setup();
    const args = { ...NEW_EVENT, timeZone: "Europe/Paris", attendees: [{ email: "bob@example.com" }] };
    const result = await call(net, "google_calendar_create_event", args);
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content)).toMatchObject({ kind: "calendar#event", id: "created1", summary: "Review" });
    const [req] = calendar.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/calendar/v3/calendars/primary/events");
    expect(req!.query.toString()).toBe("sendUpdates=none");
    expect(JSON.parse(req!.body)).toEqual({
      summary: "Review",
      start: { dateTime: NEW_EVENT.start, timeZone: "Europe/Paris" },
      end: { dateTime: NEW_EVENT.end, timeZone: "Europe/Paris" },
      attendees: [{ email: "bob@example.com" }],
    });
  });

  test("events.delete: an empty 204 is a success", async () => {
    const { calendar, net } = setup({ events: 2 });
    const args = { calendarId: "team1@group.calendar.google.com", eventId: "ev2", sendUpdates: "all" };
    const result = await call(net, "google_calendar_delete_event", args);
    expect(result).toEqual({ content: "{}" });
    const [req] = calendar.seen;
    expect(req!.method).toBe("DELETE");
    expect(req!.path).toBe("/calendar/v3/calendars/team1%40group.calendar.google.com/events/ev2");
    expect(req!.query.toString()).toBe("sendUpdates=all");
    expect(calendar.state.events.map((e) => e.id)).toEqual(["ev1"]);
  });
});

describe("google_calendar errors, word for word", () => {
  test("401 asks for reconnection", async () => {
    const { net } = setup();
    expect(await call(net, "google_calendar_list_calendars", {}, "ya29.expired")).toEqual({
      content: "google_calendar needs reconnection. Run fermix plugins auth reauthorize google_calendar.",
      isError: true,
    });
  });

  test("403 with a missing scope names the write scope the tool needs", async () => {
    const { calendar, net } = setup();
    calendar.state.mode = "scope";
    expect(await call(net, "google_calendar_create_event", NEW_EVENT)).toEqual({
      content:
        "google_calendar is missing a permission google_calendar_create_event needs (insufficientPermissions): " +
        `it needs ${WRITE}. Run fermix plugins auth reauthorize google_calendar and grant it.`,
      isError: true,
    });
  });

  test("403 on a read names the read scope", async () => {
    const { calendar, net } = setup();
    calendar.state.mode = "scope";
    const result = await call(net, "google_calendar_list_events", { timeMin: "2025-06-01T00:00:00Z" });
    expect(result.content).toBe(
      "google_calendar is missing a permission google_calendar_list_events needs (insufficientPermissions): " +
        `it needs ${READ}. Run fermix plugins auth reauthorize google_calendar and grant it.`,
    );
  });

  test("403 requiredAccessLevel (a calendar shared read-only) falls back to the permission sentence", async () => {
    const { calendar, net } = setup();
    calendar.state.mode = "not_writer";
    expect(await call(net, "google_calendar_create_event", NEW_EVENT)).toEqual({
      content:
        "google_calendar_create_event was refused (HTTP 403): the connected account lacks permission; it needs " +
        `${WRITE}; if it was not granted, run fermix plugins auth reauthorize google_calendar. Response: ` +
        '{"error":{"code":403,"message":"You need to have writer access to this calendar.","errors":[{"message":' +
        '"You need to have writer access to this calendar.","domain":"global","reason":"requiredAccessLevel"}]}}',
      isError: true,
    });
  });

  test("429 carries Retry-After", async () => {
    const { calendar, net } = setup();
    calendar.state.mode = "rate_limited";
    calendar.state.retryAfter = "30";
    expect(await call(net, "google_calendar_list_calendars", {})).toEqual({
      content: "google_calendar is rate limiting requests (HTTP 429); retry after 30 seconds (Retry-After: 30).",
      isError: true,
    });
  });

  test("deleting an event already gone is a 410 with Google's body", async () => {
    const { net } = setup();
    expect(await call(net, "google_calendar_delete_event", { eventId: "gone" })).toEqual({
      content:
        "google_calendar_delete_event failed with HTTP 410: " +
        '{"error":{"code":410,"message":"Resource has been deleted","errors":[{"message":"Resource has been deleted",' +
        '"domain":"global","reason":"deleted"}]}}',
      isError: true,
    });
  });
});
