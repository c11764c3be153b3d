import { createFakeGateway, type Dispatch, type FakeGateway, type SocketData } from "./discord-gateway.ts";

/**
 * Discord on 127.0.0.1, strict about its wire: REST API v10 under `<baseUrl>/v10` (what `api_base_url` is set to,
 * like https://discord.com/api), the gateway websocket (discord-gateway.ts) at the URL GET /gateway/bot names,
 * and a CDN for attachments. REST wants `Authorization: Bot <token>` (401 otherwise) except for interaction
 * callbacks and webhook edits, answers with Discord's JSON errors and codes, and checks what the adapter sends the
 * way Discord does: content ≤ 2,000 code points and never empty (50035, 50006), allowed_mentions, a reply
 * reference to a message that exists (unless fail_if_not_exists is false), button rows and custom_id ≤ 100, files
 * ≤ 10 MB (40005), reactions Discord knows (10014), edits of the bot's own messages only, interaction callbacks
 * once (40060) and within 3 s of the dispatch (10062). A 429 is Discord's: Retry-After and X-RateLimit-* headers,
 * `retry_after` in the body, and the route stays limited — an early retry gets another 429 — until it passes.
 */

export type FakeUser = { id: string; username: string; global_name?: string; bot?: boolean };
export type UploadedFile = { field: string; filename: string; type: string; bytes: Uint8Array };

export type DiscordCall = {
  /** "POST /channels/:channel/messages", … */
  route: string;
  path: string;
  params: Record<string, string>;
  headers: Record<string, string>;
  /** The JSON body, or a multipart body's payload_json. */
  body: any;
  files: UploadedFile[];
  /** 0 until answered. */
  status: number;
  answer: any;
  at: number;
  /** Interaction callbacks: milliseconds since the interaction was dispatched. */
  sinceDispatchMs?: number;
  answered: Promise<DiscordCall>;
};

export type StoredMessage = {
  id: string;
  channelId: string;
  authorId: string;
  content: string;
  components: any[];
  attachments: any[];
  flags: number;
  reactions: string[];
};

type Failure = { status: 429; retryAfter: number; global?: boolean } | { status: 500 | 502 };
type Interaction = { id: string; token: string; at: number; acked: boolean; messageId: string };
type Waiter = { route: string; predicate: (c: DiscordCall) => boolean; resolve: (c: DiscordCall) => void };

const MAX_FILE_BYTES = 10 * 1024 * 1024;
const EPHEMERAL = 1 << 6;
const SENDABLE_FLAGS = (1 << 2) | (1 << 12);
const PICTOGRAPHIC = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator})/u;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}
const invalidForm = (field: string, code: string, message: string) =>
  new ApiError(400, {
    message: "Invalid Form Body",
    code: 50035,
    errors: { [field]: { _errors: [{ code, message }] } },
  });
const unknown = (what: "Channel" | "Message" | "Emoji" | "Webhook" | "interaction", code: number) =>
  new ApiError(what === "Emoji" ? 400 : 404, { message: `Unknown ${what}`, code });

export type FakeDiscord = {
  /** What `api_base_url` is set to (http://127.0.0.1:PORT/api). */
  readonly baseUrl: string;
  /** What `gateway_url` may be set to; GET /gateway/bot names it too. */
  readonly gatewayUrl: string;
  readonly token: string;
  readonly bot: FakeUser;
  readonly applicationId: string;
  readonly calls: DiscordCall[];
  readonly messages: Map<string, StoredMessage>;
  readonly gateway: FakeGateway;
  /** A user writes in a channel: MESSAGE_CREATE is dispatched (or held for a resume); returns the message. */
  userMessage(opts: {
    channelId: string;
    guildId?: string;
    author: FakeUser;
    content?: string;
    /** Puts the bot in `mentions` (as typing `<@bot>` does); the test writes the `<@id>` text itself. */
    mentionsBot?: boolean;
    attachments?: any[];
    flags?: number;
    type?: number;
  }): Record<string, any>;
  /** A user taps a button on one of the bot's messages: INTERACTION_CREATE (type 3). */
  tap(opts: { messageId: string; customId: string; user: FakeUser; guildId?: string }): Record<string, any>;
  /** An attachment served by the fake CDN, as a message's `attachments[]` holds it. */
  addAttachment(bytes: Uint8Array, opts: { filename: string; contentType?: string; declaredSize?: number }): any;
  /** The next `times` calls of a route fail this way. */
  failNext(route: string, failure: Failure, times?: number): void;
  waitForCall(route: string, predicate?: (c: DiscordCall) => boolean): Promise<DiscordCall>;
  callsOf(route: string): DiscordCall[];
  /** Resolves once `n` sessions have started (READY or RESUMED sent). */
  waitForSession(n?: number): Promise<void>;
  /** Ends the live socket abruptly (no close frame), as a network drop does. */
  dropSocket(): void;
  close(): Promise<void>;
};

export async function startFakeDiscord(
  options: { token?: string; heartbeatIntervalMs?: number; messageContentIntent?: boolean } = {},
): Promise<FakeDiscord> {
  const token = options.token ?? "MTIzNDU2Nzg5MDEyMzQ1Njc4.GfakeT.fake_discord_bot_token_for_tests_only";
  const bot: FakeUser = { id: "123456789012345678", username: "fermix-test", bot: true };
  const applicationId = bot.id;
  const calls: DiscordCall[] = [];
  const waiters = new Set<Waiter>();
  const failures = new Map<string, Failure[]>();
  const limitedUntil = new Map<string, { until: number; global: boolean }>();
  const channels = new Map<string, { guildId?: string }>();
  const messages = new Map<string, StoredMessage>();
  const interactions = new Map<string, Interaction>();
  const files = new Map<string, { bytes: Uint8Array; type: string }>();
  let snowflake = 1_300_000_000_000_000_000n;
  const nextId = () => String(++snowflake);
  let origin = "";
  /** Connections that asked for a version or encoding Discord refuses: closed with that code once open. */
  const pendingRefusals = new Map<number, number>();

  const gateway = createFakeGateway({
    token,
    bot: { ...bot, discriminator: "0", avatar: null, global_name: null, verified: true, flags: 0 },
    applicationId,
    resumeUrl: () => `${origin.replace("http", "ws")}/gateway`,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1500,
    messageContentIntent: options.messageContentIntent ?? true,
  });

  const record = (call: DiscordCall) => {
    calls.push(call);
    for (const waiter of [...waiters]) {
      if (waiter.route === call.route && waiter.predicate(call)) {
        waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  };

  const userObject = (user: FakeUser) => ({
    id: user.id,
    username: user.username,
    global_name: user.global_name ?? null,
    discriminator: "0",
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  });

  function messageObject(stored: StoredMessage, extra: Record<string, unknown> = {}) {
    return {
      id: stored.id,
      channel_id: stored.channelId,
      author: stored.authorId === bot.id ? userObject(bot) : { id: stored.authorId },
      content: stored.content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: stored.attachments,
      embeds: [],
      components: stored.components,
      pinned: false,
      type: 0,
      flags: stored.flags,
      ...extra,
    };
  }

  function channelOf(id: string) {
    if (!channels.has(id)) throw unknown("Channel", 10003);
    return id;
  }

  function messageIn(channel: string, id: string): StoredMessage {
    const message = messages.get(id);
    if (!message || message.channelId !== channel) throw unknown("Message", 10008);
    return message;
  }

  function checkContent(content: unknown) {
    if (content === undefined || content === null) return;
    if (typeof content !== "string") throw invalidForm("content", "BASE_TYPE_STRING", "Must be a string.");
    if ([...content].length > 2000)
      throw invalidForm("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.");
  }

  function checkMentions(allowed: any) {
    if (allowed === undefined) return;
    const parse = allowed?.parse;
    if (
      parse !== undefined &&
      (!Array.isArray(parse) || parse.some((p) => !["users", "roles", "everyone"].includes(p)))
    ) {
      throw invalidForm(
        "allowed_mentions",
        "BASE_TYPE_CHOICES",
        "Value must be one of ('roles', 'users', 'everyone').",
      );
    }
    if (allowed.replied_user !== undefined && typeof allowed.replied_user !== "boolean") {
      throw invalidForm("allowed_mentions", "BASE_TYPE_BOOLEAN", "Must be either true or false.");
    }
  }

  function checkComponents(components: any) {
    if (components === undefined) return;
    const bad = (message: string) => invalidForm("components", "COMPONENT_INVALID", message);
    if (!Array.isArray(components) || components.length > 5) throw bad("Must be 5 or fewer in length.");
    for (const row of components) {
      if (row?.type !== 1 || !Array.isArray(row.components)) throw bad("Component type 1 expected.");
      if (row.components.length < 1 || row.components.length > 5) throw bad("Must be between 1 and 5 in length.");
      for (const button of row.components) {
        if (button?.type !== 2) throw bad("Component type 2 expected.");
        if (typeof button.label === "string" && [...button.label].length > 80)
          throw bad("Must be 80 or fewer in length.");
        if (button.style === 5) {
          if (typeof button.url !== "string") throw bad("Link buttons need a url.");
        } else if (![1, 2, 3, 4].includes(button.style)) {
          throw bad("Value must be one of {1, 2, 3, 4, 5, 6}.");
        } else if (
          typeof button.custom_id !== "string" ||
          button.custom_id.length < 1 ||
          button.custom_id.length > 100
        ) {
          throw bad("custom_id must be between 1 and 100 in length.");
        }
      }
    }
  }

  function createMessage(channel: string, body: any, uploaded: UploadedFile[]) {
    checkContent(body.content);
    checkMentions(body.allowed_mentions);
    checkComponents(body.components);
    if (body.flags !== undefined && (!Number.isInteger(body.flags) || body.flags & ~SENDABLE_FLAGS)) {
      throw invalidForm("flags", "MESSAGE_FLAGS_INVALID", "Invalid flags.");
    }
    for (const file of uploaded) {
      if (file.bytes.byteLength > MAX_FILE_BYTES)
        throw new ApiError(413, { message: "Request entity too large", code: 40005 });
    }
    const text = typeof body.content === "string" ? body.content : "";
    if (!text.trim() && !uploaded.length && !body.components?.length && !body.embeds?.length) {
      throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
    }
    let reference: Record<string, unknown> | undefined;
    const ref = body.message_reference;
    if (ref !== undefined) {
      const target = typeof ref?.message_id === "string" ? messages.get(ref.message_id) : undefined;
      if (target && target.channelId === channel) reference = { message_id: target.id, channel_id: channel };
      else if (ref?.fail_if_not_exists !== false) {
        throw invalidForm("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message");
      }
    }
    const stored: StoredMessage = {
      id: nextId(),
      channelId: channel,
      authorId: bot.id,
      content: text,
      components: body.components ?? [],
      attachments: uploaded.map((file) => ({
        id: nextId(),
        filename: file.filename,
        size: file.bytes.byteLength,
        content_type: file.type,
        url: `${origin}/attachments/${channel}/${snowflake}/${encodeURIComponent(file.filename)}`,
      })),
      flags: body.flags ?? 0,
      reactions: [],
    };
    messages.set(stored.id, stored);
    return messageObject(stored, reference ? { type: 19, message_reference: reference } : {});
  }

  function editMessage(stored: StoredMessage, body: any) {
    checkContent(body.content);
    checkMentions(body.allowed_mentions);
    checkComponents(body.components);
    if (body.content !== undefined) stored.content = body.content ?? "";
    if (body.components !== undefined) stored.components = body.components;
    if (!stored.content.trim() && !stored.attachments.length && !stored.components.length) {
      throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
    }
    return messageObject(stored);
  }

  function interactionCallback(id: string, callbackToken: string, body: any, call: DiscordCall) {
    const interaction = interactions.get(id);
    if (!interaction || interaction.token !== callbackToken) throw unknown("interaction", 10062);
    call.sinceDispatchMs = Date.now() - interaction.at;
    if (call.sinceDispatchMs > 3000) throw unknown("interaction", 10062);
    if (interaction.acked)
      throw new ApiError(400, { message: "Interaction has already been acknowledged.", code: 40060 });
    const type = body?.type;
    if (![4, 5, 6, 7].includes(type))
      throw invalidForm("type", "BASE_TYPE_CHOICES", "Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.");
    const data = body.data ?? {};
    if (type === 4) {
      checkContent(data.content);
      if (typeof data.content !== "string" || !data.content.trim())
        throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
      if (data.flags !== undefined && data.flags & ~(EPHEMERAL | (1 << 12) | (1 << 2)))
        throw invalidForm("data.flags", "MESSAGE_FLAGS_INVALID", "Invalid flags.");
    }
    if (type === 7) editMessage(messages.get(interaction.messageId)!, data);
    interaction.acked = true;
    return undefined;
  }

  async function handle(
    route: string,
    p: Record<string, string>,
    body: any,
    uploaded: UploadedFile[],
    call: DiscordCall,
  ) {
    switch (route) {
      case "GET /gateway/bot":
        return {
          url: `${origin.replace("http", "ws")}/gateway`,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
        };
      case "GET /users/@me":
        return { ...userObject(bot), verified: true, flags: 0, mfa_enabled: false };
      case "POST /channels/:channel/messages":
        return createMessage(channelOf(p.channel!), body ?? {}, uploaded);
      case "PATCH /channels/:channel/messages/:message": {
        const stored = messageIn(channelOf(p.channel!), p.message!);
        if (stored.authorId !== bot.id)
          throw new ApiError(403, { message: "Cannot edit a message authored by another user", code: 50005 });
        return editMessage(stored, body ?? {});
      }
      case "DELETE /channels/:channel/messages/:message": {
        const stored = messageIn(channelOf(p.channel!), p.message!);
        if (stored.authorId !== bot.id) throw new ApiError(403, { message: "Missing Permissions", code: 50013 });
        messages.delete(stored.id);
        return undefined;
      }
      case "POST /channels/:channel/typing":
        channelOf(p.channel!);
        return undefined;
      case "PUT /channels/:channel/messages/:message/reactions/:emoji/@me": {
        const stored = messageIn(channelOf(p.channel!), p.message!);
        const emoji = decodeURIComponent(p.emoji!);
        if (!PICTOGRAPHIC.test(emoji) && !/^[\w-]{2,32}:\d{1,20}$/.test(emoji)) throw unknown("Emoji", 10014);
        if (!stored.reactions.includes(emoji)) stored.reactions.push(emoji);
        return undefined;
      }
      case "POST /interactions/:interaction/:token/callback":
        return interactionCallback(p.interaction!, p.token!, body, call);
      case "PATCH /webhooks/:application/:token/messages/@original": {
        const interaction = [...interactions.values()].find((i) => i.token === p.token);
        if (p.application !== applicationId || !interaction || !interaction.acked) throw unknown("Webhook", 10015);
        return editMessage(messages.get(interaction.messageId)!, body ?? {});
      }
      default:
        throw new ApiError(404, { message: "404: Not Found", code: 0 });
    }
  }

  const ROUTES: Array<[string, RegExp, string[]]> = [
    ["GET /gateway/bot", /^\/gateway\/bot$/, []],
    ["GET /users/@me", /^\/users\/@me$/, []],
    ["POST /channels/:channel/messages", /^\/channels\/([^/]+)\/messages$/, ["channel"]],
    ["PATCH /channels/:channel/messages/:message", /^\/channels\/([^/]+)\/messages\/([^/]+)$/, ["channel", "message"]],
    ["DELETE /channels/:channel/messages/:message", /^\/channels\/([^/]+)\/messages\/([^/]+)$/, ["channel", "message"]],
    ["POST /channels/:channel/typing", /^\/channels\/([^/]+)\/typing$/, ["channel"]],
    [
      "PUT /channels/:channel/messages/:message/reactions/:emoji/@me",
      /^\/channels\/([^/]+)\/messages\/([^/]+)\/reactions\/([^/]+)\/@me$/,
      ["channel", "message", "emoji"],
    ],
    [
      "POST /interactions/:interaction/:token/callback",
      /^\/interactions\/([^/]+)\/([^/]+)\/callback$/,
      ["interaction", "token"],
    ],
    [
      "PATCH /webhooks/:application/:token/messages/@original",
      /^\/webhooks\/([^/]+)\/([^/]+)\/messages\/@original$/,
      ["application", "token"],
    ],
  ];
  const NO_BOT_AUTH = new Set([
    "POST /interactions/:interaction/:token/callback",
    "PATCH /webhooks/:application/:token/messages/@original",
  ]);

  function match(method: string, path: string): { route: string; params: Record<string, string> } {
    for (const [route, re, names] of ROUTES) {
      if (!route.startsWith(`${method} `)) continue;
      const m = re.exec(path);
      if (m) return { route, params: Object.fromEntries(names.map((n, i) => [n, m[i + 1]!])) };
    }
    return { route: `${method} ${path}`, params: {} };
  }

  async function readBody(req: Request): Promise<{ body: any; files: UploadedFile[] }> {
    const type = req.headers.get("content-type") ?? "";
    if (type.startsWith("multipart/form-data")) {
      const form = await req.formData();
      const uploaded: UploadedFile[] = [];
      let body: any = {};
      for (const [name, value] of form.entries()) {
        if (typeof value === "string") {
          if (name !== "payload_json") continue;
          try {
            body = JSON.parse(value);
          } catch {
            throw new ApiError(400, { message: "Invalid Form Body", code: 50109 });
          }
        } else if (/^files\[\d+\]$/.test(name)) {
          uploaded.push({
            field: name,
            filename: value.name,
            type: value.type,
            bytes: new Uint8Array(await value.arrayBuffer()),
          });
        }
      }
      return { body, files: uploaded };
    }
    const text = await req.text();
    if (!text) return { body: undefined, files: [] };
    if (!type.startsWith("application/json"))
      throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
    try {
      return { body: JSON.parse(text), files: [] };
    } catch {
      throw new ApiError(400, { message: "The request body contains invalid JSON.", code: 50109 });
    }
  }

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    body === undefined
      ? new Response(null, { status: 204, headers })
      : new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

  /** One bucket per route and major parameter (the channel, or the interaction), as Discord keys its limits. */
  const bucketOf = (route: string, params: Record<string, string>) =>
    `${route}:${params.channel ?? params.interaction ?? params.application ?? ""}`;

  function rateLimited(bucket: string, until: number, global: boolean, exact?: number): Response {
    const seconds = exact ?? Math.max(0, (until - Date.now()) / 1000);
    const body = { message: "You are being rate limited.", retry_after: Math.round(seconds * 1000) / 1000, global };
    return json(429, body, {
      "retry-after": String(Math.ceil(seconds)),
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(until / 1000),
      "x-ratelimit-reset-after": String(seconds),
      "x-ratelimit-bucket": `fake-${Bun.hash(bucket).toString(16)}`,
      "x-ratelimit-scope": global ? "global" : "user",
      ...(global ? { "x-ratelimit-global": "true" } : {}),
    });
  }

  const server = Bun.serve<SocketData>({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/gateway" || url.pathname === "/gateway/") {
        const version = url.searchParams.get("v");
        const encoding = url.searchParams.get("encoding");
        const connection = gateway.nextConnection();
        // Checked once the socket is open: Discord refuses with a close code, not an HTTP error.
        if (version !== "10" || encoding !== "json" || url.searchParams.has("compress")) {
          pendingRefusals.set(connection, version !== "10" ? 4012 : 4002);
        }
        if (!srv.upgrade(req, { data: { connection } })) return new Response("Upgrade Required", { status: 426 });
        return undefined;
      }
      const attachment = /^\/attachments\/[^/]+\/([^/]+)\/[^/]+$/.exec(url.pathname);
      if (attachment && req.method === "GET") {
        const file = files.get(attachment[1]!);
        if (!file) return new Response("Not Found", { status: 404 });
        return new Response(file.bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": file.type } });
      }
      const api = /^\/api\/v10(\/.*)$/.exec(url.pathname);
      const { route, params } = api
        ? match(req.method, api[1]!)
        : { route: `${req.method} ${url.pathname}`, params: {} };
      let answered!: (call: DiscordCall) => void;
      const call: DiscordCall = {
        route,
        path: url.pathname,
        params,
        headers: Object.fromEntries(req.headers),
        body: undefined,
        files: [],
        status: 0,
        answer: undefined,
        at: Date.now(),
        answered: new Promise((resolve) => {
          answered = resolve;
        }),
      };
      const finish = (response: Response, body: unknown) => {
        call.status = response.status;
        call.answer = body;
        record(call);
        answered(call);
        return response;
      };
      try {
        if (!api) throw new ApiError(404, { message: "404: Not Found", code: 0 });
        if (!NO_BOT_AUTH.has(route) && req.headers.get("authorization") !== `Bot ${token}`) {
          throw new ApiError(401, { message: "401: Unauthorized", code: 0 });
        }
        const read = await readBody(req);
        call.body = read.body;
        call.files = read.files;
        const bucket = bucketOf(route, params);
        const limit = limitedUntil.get(bucket) ?? limitedUntil.get("global");
        if (limit && limit.until > Date.now()) {
          const response = rateLimited(bucket, limit.until, limit.global);
          return finish(response, JSON.parse(await response.clone().text()));
        }
        const injected = failures.get(route)?.shift();
        if (injected?.status === 429) {
          const until = Date.now() + injected.retryAfter * 1000;
          limitedUntil.set(injected.global ? "global" : bucket, { until, global: injected.global === true });
          const response = rateLimited(bucket, until, injected.global === true, injected.retryAfter);
          return finish(response, JSON.parse(await response.clone().text()));
        }
        if (injected)
          throw new ApiError(injected.status, { message: `${injected.status}: Internal Server Error`, code: 0 });
        const result = await handle(route, params, read.body, read.files, call);
        return finish(
          json(200, result, {
            "x-ratelimit-limit": "50",
            "x-ratelimit-remaining": "49",
            "x-ratelimit-reset-after": "1",
          }),
          result,
        );
      } catch (err) {
        if (err instanceof ApiError) return finish(json(err.status, err.body), err.body);
        throw err;
      }
    },
    websocket: {
      open(ws) {
        const refusal = pendingRefusals.get(ws.data.connection);
        gateway.open(ws);
        if (refusal) ws.close(refusal, refusal === 4012 ? "Invalid API version." : "Error while decoding payload.");
      },
      message: (ws, raw) => gateway.message(ws, raw),
      close: (ws, code) => gateway.close(ws, code),
    },
  });
  origin = `http://127.0.0.1:${server.port}`;

  return {
    baseUrl: `${origin}/api`,
    gatewayUrl: `${origin.replace("http", "ws")}/gateway`,
    token,
    bot,
    applicationId,
    calls,
    messages,
    gateway,

    userMessage(opts) {
      channels.set(opts.channelId, opts.guildId ? { guildId: opts.guildId } : {});
      const id = nextId();
      const stored: StoredMessage = {
        id,
        channelId: opts.channelId,
        authorId: opts.author.id,
        content: opts.content ?? "",
        components: [],
        attachments: opts.attachments ?? [],
        flags: opts.flags ?? 0,
        reactions: [],
      };
      messages.set(id, stored);
      const message = {
        ...messageObject(stored, { type: opts.type ?? 0 }),
        author: userObject(opts.author),
        mentions: opts.mentionsBot ? [userObject(bot)] : [],
        ...(opts.guildId
          ? {
              guild_id: opts.guildId,
              member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false },
            }
          : {}),
      };
      // Before any bot session the message is only stored: Discord sends a bot nothing from before it connected.
      if (gateway.hasSession()) gateway.dispatch("MESSAGE_CREATE", message);
      return message;
    },

    tap(opts) {
      const stored = messages.get(opts.messageId);
      if (!stored) throw new Error(`the fake has no message ${opts.messageId}`);
      const id = nextId();
      const interactionToken = `aW50ZXJhY3Rpb246${id}${crypto.randomUUID().replaceAll("-", "")}`;
      interactions.set(id, { id, token: interactionToken, at: Date.now(), acked: false, messageId: stored.id });
      const interaction = {
        id,
        application_id: applicationId,
        type: 3,
        data: { custom_id: opts.customId, component_type: 2 },
        channel_id: stored.channelId,
        channel: { id: stored.channelId, type: opts.guildId ? 0 : 1 },
        ...(opts.guildId
          ? { guild_id: opts.guildId, member: { user: userObject(opts.user), roles: [], permissions: "0" } }
          : { user: userObject(opts.user) }),
        token: interactionToken,
        version: 1,
        message: messageObject(stored),
        locale: "en-US",
        app_permissions: "0",
        entitlements: [],
        context: opts.guildId ? 0 : 1,
      };
      gateway.dispatch("INTERACTION_CREATE", interaction);
      return interaction;
    },

    addAttachment(bytes, opts) {
      const id = nextId();
      const type = opts.contentType ?? "application/octet-stream";
      files.set(id, { bytes, type });
      return {
        id,
        filename: opts.filename,
        size: opts.declaredSize ?? bytes.byteLength,
        url: `${origin}/attachments/0/${id}/${encodeURIComponent(opts.filename)}`,
        proxy_url: `${origin}/attachments/0/${id}/${encodeURIComponent(opts.filename)}`,
        ...(opts.contentType ? { content_type: opts.contentType } : {}),
      };
    },

    failNext(route, failure, times = 1) {
      const list = failures.get(route) ?? [];
      for (let i = 0; i < times; i++) list.push(failure);
      failures.set(route, list);
    },

    waitForCall(route, predicate = () => true) {
      const found = calls.find((c) => c.route === route && predicate(c));
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.add({ route, predicate, resolve }));
    },

    callsOf: (route) => calls.filter((c) => c.route === route),

    async waitForSession(n = 1) {
      await gateway.waitForStarts((starts) => starts.length >= n);
    },

    dropSocket() {
      const live = gateway.live();
      if (!live) throw new Error("the fake Discord gateway has no live connection to drop");
      live.terminate();
    },

    async close() {
      gateway.stop();
      await server.stop(true);
    },
  };
}

export type { Dispatch };
