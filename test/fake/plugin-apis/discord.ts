import { json, record, type Seen } from "./recorder.ts";

const API = "/api/v10";

/**
 * A Discord REST v10 fake for a bot token: the bot's guilds (member counts only with `with_counts=true`, as Discord
 * does), a guild's channels and members, and channel messages newest first, paged backwards by `before`. The token
 * must come with the `Bot` scheme; errors are Discord's `{message, code}`, 429s add `retry_after` and headers.
 */
export function fakeDiscord(opts: { token: string; messages?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "rate_limited",
    membersIntent: false,
    // Snowflakes grow with time; newest first means the highest id first.
    messages: Array.from({ length: opts.messages ?? 0 }, (_, i) => messageOf(snowflake(opts.messages! - i))),
  };

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (req.headers.get("authorization") !== `Bot ${opts.token}`) {
      return json({ message: "401: Unauthorized", code: 0 }, 401);
    }
    if (state.mode === "rate_limited") {
      const headers = {
        "retry-after": "3",
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": "2.371",
        "x-ratelimit-bucket": "80c17d2f203122d936070c88c8d10f33",
        "x-ratelimit-scope": "user",
      };
      return json({ message: "You are being rate limited.", retry_after: 2.371, global: false }, 429, headers);
    }

    if (req.method === "GET" && req.path === `${API}/users/@me/guilds`) {
      const counts = req.query.get("with_counts") === "true";
      return json(
        ["Builders", "Readers"].map((name, i) => ({
          id: String(1100000000000000000n + BigInt(i)),
          name,
          icon: null,
          banner: null,
          owner: i === 0,
          permissions: "1071698660929",
          features: [],
          ...(counts ? { approximate_member_count: 42 + i, approximate_presence_count: 7 } : {}),
        })),
      );
    }
    const guild = new RegExp(`^${API}/guilds/(\\d+)/(channels|members)$`).exec(req.path);
    if (req.method === "GET" && guild?.[2] === "channels") {
      return json([
        channelOf("1200000000000000001", 4, "Text Channels", null, 0),
        channelOf("1200000000000000002", 0, "general", "1200000000000000001", 0),
      ]);
    }
    if (req.method === "GET" && guild?.[2] === "members") {
      // Listing members needs the privileged Server Members intent, switched on in the developer portal.
      if (!state.membersIntent) return json({ message: "Missing Access", code: 50001 }, 403);
      return json([]);
    }
    const messages = new RegExp(`^${API}/channels/(\\d+)/messages$`).exec(req.path);
    if (req.method === "GET" && messages) {
      const limit = Number(req.query.get("limit") ?? 50);
      const before = req.query.get("before");
      const older = before ? state.messages.filter((m) => BigInt(m.id) < BigInt(before)) : state.messages;
      return json(older.slice(0, limit));
    }
    return json({ message: "Unknown Channel", code: 10003 }, 404);
  };
  return { handler, seen, state };
}

function snowflake(n: number): string {
  return String(1300000000000000000n + BigInt(n) * 4194304n);
}

function messageOf(id: string) {
  return {
    id,
    type: 0,
    channel_id: "1200000000000000002",
    author: { id: "1000000000000000001", username: "ada", global_name: "Ada", avatar: null, discriminator: "0" },
    content: `message ${id}`,
    timestamp: "2025-06-01T12:00:00.000000+00:00",
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    attachments: [],
    embeds: [],
    pinned: false,
  };
}

function channelOf(id: string, type: number, name: string, parent: string | null, position: number) {
  return {
    id,
    type,
    guild_id: "1100000000000000000",
    name,
    parent_id: parent,
    position,
    permission_overwrites: [],
    flags: 0,
    ...(type === 0 ? { topic: null, nsfw: false, last_message_id: null, rate_limit_per_user: 0 } : {}),
  };
}
