/**
 * Slack on 127.0.0.1, strict about its wire, for both of the channel's transports:
 * - the Web API: POST (or GET) /api/<method> with a form, multipart or JSON body, the token as a Bearer header or a
 *   `token` field (JSON only with the header). Answers are HTTP 200 `{ok:true, …}` or `{ok:false, error}` with
 *   Slack's error codes (not_authed, invalid_auth, not_allowed_token_type, channel_not_found, msg_too_long, no_text,
 *   invalid_name, already_reacted, message_not_found, cant_update_message…); a rate limit is HTTP 429 with a
 *   Retry-After header and `{ok:false, error:"ratelimited"}`. The app-level token (xapp-) opens Socket Mode and
 *   nothing else; the bot token (xoxb-) does everything else.
 * - Socket Mode: apps.connections.open hands out a single-use ws:// URL; the socket says `hello`, carries
 *   `events_api` envelopes, and expects each `{envelope_id}` acknowledged within 3 s or re-sends it with
 *   retry_attempt + 1 (as Slack does, up to three times). `disconnect` asks the client to reconnect.
 * - the Events API over HTTP: the fake signs and POSTs event_callback / url_verification bodies to a webhook URL
 *   (X-Slack-Signature v0 + X-Slack-Request-Timestamp), as Slack would.
 * - files: uploaded through files.getUploadURLExternal → POST to upload_url → files.completeUploadExternal, and
 *   served at url_private only with the bot token (without it, a redirect to an HTML login page, like Slack's).
 * What the bot posts in a DM comes back over the socket as a message.im event with its bot_id, as it does on Slack.
 * Every Web API call is recorded.
 */
import { createHmac } from "node:crypto";
import type { ServerWebSocket } from "bun";

export type SlackCall = {
  method: string;
  /** Parameters as sent (form fields are strings; a JSON body keeps its types). */
  params: Record<string, any>;
  /** Where the token came from. */
  tokenVia: "header" | "body" | "none";
  contentType: string;
  /** The HTTP status the fake answered with (0 while pending). */
  status: number;
  answer: any;
  at: number;
  answered: Promise<SlackCall>;
};

/** A message in a channel as the fake keeps it (the bot's and the users'). */
export type SlackMessage = {
  channel: string;
  ts: string;
  text: string;
  user: string;
  bot: boolean;
  threadTs?: string;
  files?: SlackFile[];
  reactions: string[];
};

export type SlackFile = {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
  subtype?: string;
  [key: string]: unknown;
};

export type SlackUpload = {
  fileId: string;
  filename: string;
  length: number;
  bytes?: Uint8Array;
  completed?: { channel?: string; threadTs?: string; initialComment?: string; title?: string };
};

/** An envelope the fake sent over the socket, and what became of it. */
export type SlackEnvelope = {
  envelopeId: string;
  eventId: string;
  event: Record<string, any>;
  /** How many times it was (re)sent. */
  attempts: number;
  /** Resolves when the client acknowledges it. */
  acked: Promise<{ at: number; payload?: unknown }>;
};

type Failure = { error: string } | { status: 429; retryAfter: number } | { status: 500 | 503 };

export type FakeSlack = {
  /** What `api_base_url` is set to (the Web API's base, ending in /api/). */
  readonly apiUrl: string;
  readonly baseUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly calls: SlackCall[];
  readonly messages: SlackMessage[];
  readonly uploads: SlackUpload[];
  readonly envelopes: SlackEnvelope[];
  /** Socket Mode connections opened so far, and how many say hello now. */
  readonly connections: { opened: number; live: number };
  /** A DM channel between the bot and `user` (made once, then the same id). */
  dm(user: string): string;
  /** A public channel the bot is in. */
  channel(id?: string): string;
  /** A user's message event (a DM unless `channel` is a C… channel), registered as a message in that channel. */
  message(o: {
    user: string;
    text?: string;
    channel?: string;
    files?: SlackFile[];
    threadTs?: string;
    subtype?: string;
    botId?: string;
  }): Record<string, any>;
  /** An app_mention event: "<@bot> text" in a channel (registered as a message there). */
  mention(o: { user: string; channel: string; text: string; threadTs?: string }): Record<string, any>;
  /** A file a user shared: downloadable at its url_private with the bot token. */
  addFile(bytes: Uint8Array, o: { name: string; mimetype: string; filetype: string; subtype?: string }): SlackFile;
  /** Sends an events_api envelope over the newest live socket (waiting for one if none is up yet). */
  sendEvent(event: Record<string, any>, options?: { eventId?: string }): Promise<SlackEnvelope>;
  /** Asks the connected client to reconnect, as Slack does when it recycles a connection. */
  requestReconnect(reason?: "refresh_requested" | "warning" | "link_disabled"): void;
  /** Resolves once `count` connections have said hello in all. */
  waitForHello(count?: number): Promise<void>;
  /** The body Slack POSTs for an event (event_callback). */
  eventCallback(event: Record<string, any>, options?: { eventId?: string }): Record<string, any>;
  /** POSTs a body to a webhook URL signed like Slack does (or as told: a wrong secret, an old timestamp). */
  deliver(
    url: string,
    body: Record<string, any>,
    options?: { secret?: string; timestamp?: number; signature?: string; retryNum?: number },
  ): Promise<Response>;
  failNext(method: string, failure: Failure, times?: number): void;
  waitForCall(method: string, predicate?: (call: SlackCall) => boolean): Promise<SlackCall>;
  callsOf(method: string): SlackCall[];
  /** The bot's messages in a channel, in order. */
  botMessages(channel: string): SlackMessage[];
  close(): Promise<void>;
};

/** Slack's cap on a message's text; longer is refused (msg_too_long). */
export const SLACK_TEXT_LIMIT = 40_000;
/** How long Slack waits for an envelope's ack before sending it again. */
export const ACK_TIMEOUT_MS = 3000;

/** Names Slack knows as emoji (a sample of the standard set, aliases included). */
const EMOJI_NAMES = new Set(
  (
    "+1 thumbsup -1 thumbsdown tada eyes fire heart white_check_mark heavy_check_mark x raised_hands clap joy " +
    "thinking_face pray ok_hand 100 rocket star wave smile cry sob slightly_smiling_face grinning heart_eyes " +
    "muscle " +
    "sunglasses sweat_smile hugging_face saluting_face see_no_evil bulb memo warning question exclamation zap"
  ).split(" "),
);

const BOT_METHODS = new Set([
  "auth.test",
  "chat.postMessage",
  "chat.update",
  "chat.delete",
  "reactions.add",
  "files.getUploadURLExternal",
  "files.completeUploadExternal",
  "users.info",
]);

class ApiError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(error);
  }
}

type SocketData = { id: number };

export async function startFakeSlack(
  options: { ackTimeoutMs?: number; botToken?: string; appToken?: string; signingSecret?: string } = {},
): Promise<FakeSlack> {
  const botToken = options.botToken ?? "xoxb-1111111111-2222222222222-FakeBotTokenForTestsOnly01";
  const appToken = options.appToken ?? "xapp-1-A0FERMIX01-3333333333-fakeapptokenfortestsonly0123456789abcdef";
  const signingSecret = options.signingSecret ?? "8f742231b10e8888abcd99edabcd00d5";
  const ackTimeoutMs = options.ackTimeoutMs ?? ACK_TIMEOUT_MS;
  const teamId = "T0FERMIX01";
  const appId = "A0FERMIX01";
  const botUserId = "U0FERMIXBOT";
  const botId = "B0FERMIX01";

  const calls: SlackCall[] = [];
  const messages: SlackMessage[] = [];
  const uploads: SlackUpload[] = [];
  const envelopes: SlackEnvelope[] = [];
  const channels = new Set<string>();
  const dms = new Map<string, string>();
  const files = new Map<string, { file: SlackFile; bytes: Uint8Array }>();
  const failures = new Map<string, Failure[]>();
  const waiters = new Set<{ method: string; predicate: (c: SlackCall) => boolean; resolve: (c: SlackCall) => void }>();
  const tickets = new Set<string>();
  const sockets = new Map<number, ServerWebSocket<SocketData>>();
  const helloWaiters = new Set<{ count: number; resolve: () => void }>();
  const socketWaiters: Array<() => void> = [];
  const pendingAcks = new Map<
    string,
    {
      envelope: SlackEnvelope;
      timer?: ReturnType<typeof setTimeout>;
      resolve: (a: { at: number; payload?: unknown }) => void;
    }
  >();
  const connections = { opened: 0, live: 0 };
  let hellos = 0;
  let counter = 0;
  let tsSeconds = Math.floor(Date.now() / 1000);
  let tsMicros = 100;
  let closed = false;

  const nextId = (prefix: string, width = 9) => `${prefix}${String(++counter).padStart(width, "0")}`;
  const nextTs = () => {
    tsMicros += 100;
    if (tsMicros >= 1_000_000) {
      tsSeconds += 1;
      tsMicros = 100;
    }
    return `${tsSeconds}.${String(tsMicros).padStart(6, "0")}`;
  };

  const record = (call: SlackCall) => {
    calls.push(call);
    for (const waiter of [...waiters]) {
      if (waiter.method === call.method && waiter.predicate(call)) {
        waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
    });

  function knownChannel(params: Record<string, any>, key = "channel"): string {
    const channel = params[key];
    if (typeof channel !== "string" || !channel) throw new ApiError("channel_not_found");
    // Posting to a user id goes to that user's DM with the app.
    if (/^U[A-Z0-9]+$/.test(channel) && dms.has(channel)) return dms.get(channel)!;
    if (!channels.has(channel)) throw new ApiError("channel_not_found");
    return channel;
  }

  function findMessage(channel: string, ts: unknown): SlackMessage | undefined {
    return messages.find((m) => m.channel === channel && m.ts === ts);
  }

  function checkText(text: unknown, required: boolean): string {
    if (text === undefined || text === null || String(text).trim() === "") {
      if (required) throw new ApiError("no_text");
      return "";
    }
    const value = String(text);
    if (value.length > SLACK_TEXT_LIMIT) throw new ApiError("msg_too_long");
    return value;
  }

  function botPost(channel: string, text: string, threadTs?: string, attached?: SlackFile[]): SlackMessage {
    const message: SlackMessage = {
      channel,
      ts: nextTs(),
      text,
      user: botUserId,
      bot: true,
      ...(threadTs ? { threadTs } : {}),
      ...(attached ? { files: attached } : {}),
      reactions: [],
    };
    messages.push(message);
    // Slack echoes the bot's own DM messages to an app subscribed to message.im.
    if (channel.startsWith("D") && sockets.size) {
      void api.sendEvent({
        type: "message",
        channel,
        user: botUserId,
        bot_id: botId,
        text,
        ts: message.ts,
        event_ts: message.ts,
        channel_type: "im",
        team: teamId,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        bot_profile: { id: botId, app_id: appId, name: "fermix", team_id: teamId },
      });
    }
    return message;
  }

  function handle(method: string, params: Record<string, any>, kind: "bot" | "app"): Record<string, unknown> {
    if (method === "apps.connections.open") {
      if (kind !== "app") throw new ApiError("not_allowed_token_type");
      const ticket = crypto.randomUUID();
      tickets.add(ticket);
      return { url: `ws://127.0.0.1:${server.port}/link/?ticket=${ticket}&app_id=${appId}` };
    }
    if (kind !== "bot") throw new ApiError("not_allowed_token_type");
    switch (method) {
      case "auth.test":
        return {
          url: "https://fermix-test.slack.com/",
          team: "Fermix Test",
          user: "fermix",
          team_id: teamId,
          user_id: botUserId,
          bot_id: botId,
          is_enterprise_install: false,
        };
      case "users.info": {
        const user = String(params.user ?? "");
        if (!/^U[A-Z0-9]+$/.test(user)) throw new ApiError("user_not_found");
        return { user: { id: user, team_id: teamId, name: user.toLowerCase(), real_name: `User ${user}` } };
      }
      case "chat.postMessage": {
        const channel = knownChannel(params);
        const hasBlocks = params.blocks !== undefined || params.attachments !== undefined;
        const text = checkText(params.text, !hasBlocks);
        const threadTs =
          params.thread_ts === undefined || params.thread_ts === "" ? undefined : String(params.thread_ts);
        const message = botPost(channel, text, threadTs);
        return {
          channel,
          ts: message.ts,
          message: { type: "message", user: botUserId, bot_id: botId, text, ts: message.ts, team: teamId },
        };
      }
      case "chat.update": {
        const channel = knownChannel(params);
        const message = findMessage(channel, params.ts);
        if (!message) throw new ApiError("message_not_found");
        if (!message.bot) throw new ApiError("cant_update_message");
        message.text = checkText(params.text, params.blocks === undefined);
        return { channel, ts: message.ts, text: message.text };
      }
      case "chat.delete": {
        const channel = knownChannel(params);
        const message = findMessage(channel, params.ts);
        if (!message) throw new ApiError("message_not_found");
        if (!message.bot) throw new ApiError("cant_delete_message");
        messages.splice(messages.indexOf(message), 1);
        return { channel, ts: message.ts };
      }
      case "reactions.add": {
        if (!params.name || !params.timestamp || !params.channel) throw new ApiError("no_item_specified");
        const channel = knownChannel(params);
        const name = String(params.name);
        if (!EMOJI_NAMES.has(name)) throw new ApiError("invalid_name");
        const message = findMessage(channel, params.timestamp);
        if (!message) throw new ApiError("message_not_found");
        if (message.reactions.includes(name)) throw new ApiError("already_reacted");
        message.reactions.push(name);
        return {};
      }
      case "files.getUploadURLExternal": {
        const length = Number(params.length);
        if (!params.filename || !Number.isInteger(length) || length <= 0) throw new ApiError("invalid_arguments");
        const fileId = nextId("F0", 9);
        uploads.push({ fileId, filename: String(params.filename), length });
        return { upload_url: `http://127.0.0.1:${server.port}/upload/v1/${fileId}`, file_id: fileId };
      }
      case "files.completeUploadExternal": {
        let list: unknown = params.files;
        if (typeof list === "string") {
          try {
            list = JSON.parse(list);
          } catch {
            throw new ApiError("invalid_arguments");
          }
        }
        if (!Array.isArray(list) || !list.length) throw new ApiError("invalid_arguments");
        const channel = params.channel_id !== undefined ? knownChannel(params, "channel_id") : undefined;
        const done: SlackFile[] = [];
        for (const entry of list as Array<{ id?: string; title?: string }>) {
          const upload = uploads.find((u) => u.fileId === entry.id);
          if (!upload?.bytes) throw new ApiError("file_not_found");
          upload.completed = {
            ...(channel ? { channel } : {}),
            ...(params.thread_ts ? { threadTs: String(params.thread_ts) } : {}),
            ...(params.initial_comment ? { initialComment: String(params.initial_comment) } : {}),
            ...(entry.title ? { title: entry.title } : {}),
          };
          done.push(fileObject(upload.fileId, upload.filename, "application/octet-stream", upload.bytes.byteLength));
        }
        if (channel) {
          const comment = params.initial_comment ? checkText(params.initial_comment, false) : "";
          botPost(channel, comment, params.thread_ts ? String(params.thread_ts) : undefined, done);
        }
        return { files: done.map((f) => ({ id: f.id, title: f.title })) };
      }
    }
    throw new ApiError("unknown_method");
  }

  function fileObject(id: string, name: string, mimetype: string, size: number, extra: Record<string, unknown> = {}) {
    const base = `http://127.0.0.1:${server.port}/files-pri/${teamId}-${id}`;
    return {
      id,
      created: Math.floor(Date.now() / 1000),
      timestamp: Math.floor(Date.now() / 1000),
      name,
      title: name,
      mimetype,
      size,
      mode: "hosted",
      is_external: false,
      is_public: false,
      user: "U0UPLOADER",
      url_private: `${base}/${encodeURIComponent(name)}`,
      url_private_download: `${base}/download/${encodeURIComponent(name)}`,
      permalink: `https://fermix-test.slack.com/files/U0UPLOADER/${id}/${encodeURIComponent(name)}`,
      ...extra,
    } as unknown as SlackFile;
  }

  async function readParams(req: Request, url: URL) {
    const params: Record<string, any> = Object.fromEntries(url.searchParams);
    const type = req.headers.get("content-type") ?? "";
    if (req.method === "POST") {
      if (type.startsWith("application/json")) {
        const text = await req.text();
        try {
          Object.assign(params, text ? JSON.parse(text) : {});
        } catch {
          throw new ApiError("invalid_json");
        }
      } else if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
        const form = await req.formData();
        for (const [name, value] of form.entries()) params[name] = typeof value === "string" ? value : value.name;
      } else {
        await req.arrayBuffer();
      }
    }
    return { params, json: type.startsWith("application/json") };
  }

  async function webApi(req: Request, url: URL, method: string): Promise<Response> {
    let answered!: (call: SlackCall) => void;
    const call: SlackCall = {
      method,
      params: {},
      tokenVia: "none",
      contentType: req.headers.get("content-type") ?? "",
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
    const fail = (error: string, extra: Record<string, unknown> = {}) => {
      const body = { ok: false, error, ...extra };
      return finish(json(200, body), body);
    };
    let params: Record<string, any>;
    let isJson: boolean;
    try {
      ({ params, json: isJson } = await readParams(req, url));
    } catch (err) {
      if (err instanceof ApiError) return fail(err.error);
      throw err;
    }
    const header = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    const token = header ?? (typeof params.token === "string" ? params.token : undefined);
    call.tokenVia = header ? "header" : token ? "body" : "none";
    delete params.token;
    call.params = params;
    // A JSON body must carry its token in the Authorization header.
    if (!token || (isJson && !header)) return fail("not_authed");
    const kind = token === botToken ? "bot" : token === appToken ? "app" : undefined;
    if (!kind) return fail("invalid_auth");
    if (kind === "app" && BOT_METHODS.has(method)) return fail("not_allowed_token_type");
    const injected = failures.get(method)?.shift();
    if (injected) {
      if ("error" in injected) return fail(injected.error);
      if (injected.status === 429) {
        const body = { ok: false, error: "ratelimited" };
        return finish(json(429, body, { "retry-after": String(injected.retryAfter) }), body);
      }
      const text = "An internal server error occurred";
      return finish(new Response(text, { status: injected.status }), text);
    }
    try {
      const body = { ok: true, ...handle(method, params, kind) };
      return finish(json(200, body), body);
    } catch (err) {
      if (err instanceof ApiError) return fail(err.error, err.extra);
      throw err;
    }
  }

  async function upload(req: Request, fileId: string): Promise<Response> {
    const entry = uploads.find((u) => u.fileId === fileId);
    if (!entry || req.method !== "POST") return new Response("Not Found", { status: 404 });
    const type = req.headers.get("content-type") ?? "";
    let bytes: Uint8Array;
    if (type.startsWith("multipart/form-data")) {
      const form = await req.formData();
      const file = [...form.values()].find((value) => typeof value !== "string") as Blob | undefined;
      if (!file) return new Response("no file in the form", { status: 400 });
      bytes = new Uint8Array(await file.arrayBuffer());
    } else {
      bytes = new Uint8Array(await req.arrayBuffer());
    }
    entry.bytes = bytes;
    return new Response(`OK - ${bytes.byteLength}`, { status: 200, headers: { "content-type": "text/plain" } });
  }

  function download(req: Request, url: URL): Response {
    const match = /^\/files-pri\/[A-Z0-9]+-(F[A-Z0-9]+)\/(?:download\/)?(.+)$/.exec(url.pathname);
    const stored = match ? files.get(match[1]!) : undefined;
    if (!stored) return new Response("Not Found", { status: 404 });
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
    if (bearer !== botToken) {
      // Slack sends a browser without the token to its sign-in page.
      return new Response(null, {
        status: 302,
        headers: { location: `http://127.0.0.1:${server.port}/?redir=${encodeURIComponent(url.pathname)}` },
      });
    }
    return new Response(stored.bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": stored.file.mimetype, "content-length": String(stored.bytes.byteLength) },
    });
  }

  function sendEnvelope(entry: SlackEnvelope, retry: number): boolean {
    const socket = [...sockets.values()].at(-1);
    if (!socket) return false;
    entry.attempts += 1;
    socket.send(
      JSON.stringify({
        envelope_id: entry.envelopeId,
        payload: api.eventCallback(entry.event, { eventId: entry.eventId }),
        type: "events_api",
        accepts_response_payload: false,
        retry_attempt: retry,
        retry_reason: retry ? "timeout" : "",
      }),
    );
    const pending = pendingAcks.get(entry.envelopeId);
    if (pending) {
      clearTimeout(pending.timer);
      // Slack tries an unacknowledged envelope three more times, then gives up on it.
      if (retry < 3) pending.timer = setTimeout(() => sendEnvelope(entry, retry + 1), ackTimeoutMs);
    }
    return true;
  }

  const server = Bun.serve<SocketData>({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/link/") {
        const ticket = url.searchParams.get("ticket") ?? "";
        // A ticket opens one connection, once.
        if (!tickets.delete(ticket)) return new Response("invalid ticket", { status: 401 });
        if (srv.upgrade(req, { data: { id: ++connections.opened } })) return undefined as unknown as Response;
        return new Response("expected a websocket upgrade", { status: 400 });
      }
      const method = /^\/api\/([A-Za-z][A-Za-z.]*)$/.exec(url.pathname)?.[1];
      if (method) return webApi(req, url, method);
      const uploadId = /^\/upload\/v1\/(F[A-Z0-9]+)$/.exec(url.pathname)?.[1];
      if (uploadId) return upload(req, uploadId);
      if (url.pathname.startsWith("/files-pri/")) return download(req, url);
      if (url.pathname === "/") {
        return new Response("<!DOCTYPE html><html><body>Sign in to Slack</body></html>", {
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      }
      return new Response("Not Found", { status: 404 });
    },
    websocket: {
      open(ws) {
        sockets.set(ws.data.id, ws);
        connections.live = sockets.size;
        ws.send(
          JSON.stringify({
            type: "hello",
            num_connections: sockets.size,
            debug_info: { host: "applink-fake-1", build_number: 118, approximate_connection_time: 18060 },
            connection_info: { app_id: appId },
          }),
        );
        hellos += 1;
        for (const waiter of [...helloWaiters]) {
          if (hellos >= waiter.count) {
            helloWaiters.delete(waiter);
            waiter.resolve();
          }
        }
        for (const wake of socketWaiters.splice(0)) wake();
      },
      message(_ws, data) {
        let ack: { envelope_id?: unknown; payload?: unknown };
        try {
          ack = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
        } catch {
          return;
        }
        const pending = typeof ack.envelope_id === "string" ? pendingAcks.get(ack.envelope_id) : undefined;
        if (!pending) return;
        clearTimeout(pending.timer);
        pendingAcks.delete(ack.envelope_id as string);
        pending.resolve({ at: Date.now(), ...(ack.payload !== undefined ? { payload: ack.payload } : {}) });
      },
      close(ws) {
        sockets.delete(ws.data.id);
        connections.live = sockets.size;
      },
    },
  });

  const api: FakeSlack = {
    apiUrl: `http://127.0.0.1:${server.port}/api/`,
    baseUrl: `http://127.0.0.1:${server.port}`,
    botToken,
    appToken,
    signingSecret,
    botUserId,
    botId,
    teamId,
    calls,
    messages,
    uploads,
    envelopes,
    connections,
    dm(user) {
      let channel = dms.get(user);
      if (!channel) {
        channel = nextId("D0", 8);
        dms.set(user, channel);
        channels.add(channel);
      }
      return channel;
    },
    channel(id) {
      const channel = id ?? nextId("C0", 8);
      channels.add(channel);
      return channel;
    },
    message(o) {
      const channel = o.channel ?? api.dm(o.user);
      channels.add(channel);
      const ts = nextTs();
      messages.push({
        channel,
        ts,
        text: o.text ?? "",
        user: o.user,
        bot: false,
        ...(o.threadTs ? { threadTs: o.threadTs } : {}),
        reactions: [],
      });
      return {
        type: "message",
        ...(o.subtype ? { subtype: o.subtype } : o.files?.length ? { subtype: "file_share" } : {}),
        channel,
        user: o.user,
        text: o.text ?? "",
        ts,
        event_ts: ts,
        channel_type: channel.startsWith("D") ? "im" : "channel",
        team: teamId,
        client_msg_id: crypto.randomUUID(),
        ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
        ...(o.files?.length ? { files: o.files, upload: false, display_as_bot: false } : {}),
        ...(o.botId ? { bot_id: o.botId } : {}),
      };
    },
    mention(o) {
      channels.add(o.channel);
      const ts = nextTs();
      const text = `<@${botUserId}> ${o.text}`;
      messages.push({
        channel: o.channel,
        ts,
        text,
        user: o.user,
        bot: false,
        ...(o.threadTs ? { threadTs: o.threadTs } : {}),
        reactions: [],
      });
      return {
        type: "app_mention",
        user: o.user,
        text,
        ts,
        channel: o.channel,
        event_ts: ts,
        team: teamId,
        client_msg_id: crypto.randomUUID(),
        ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
      };
    },
    addFile(bytes, o) {
      const id = nextId("F0", 9);
      const file = fileObject(id, o.name, o.mimetype, bytes.byteLength, {
        filetype: o.filetype,
        pretty_type: o.filetype.toUpperCase(),
        ...(o.subtype ? { subtype: o.subtype } : {}),
      });
      files.set(id, { file, bytes });
      return file;
    },
    async sendEvent(event, eventOptions = {}) {
      let resolveAck!: (a: { at: number; payload?: unknown }) => void;
      const entry: SlackEnvelope = {
        envelopeId: crypto.randomUUID(),
        eventId: eventOptions.eventId ?? nextId("Ev0", 9),
        event,
        attempts: 0,
        acked: new Promise((resolve) => {
          resolveAck = resolve;
        }),
      };
      envelopes.push(entry);
      pendingAcks.set(entry.envelopeId, { envelope: entry, resolve: resolveAck });
      while (!sendEnvelope(entry, 0)) {
        if (closed) return entry;
        await new Promise<void>((resolve) => socketWaiters.push(resolve));
      }
      return entry;
    },
    requestReconnect(reason = "refresh_requested") {
      for (const socket of sockets.values()) {
        socket.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "applink-fake-1" } }));
      }
    },
    waitForHello(count = 1) {
      if (hellos >= count) return Promise.resolve();
      return new Promise((resolve) => helloWaiters.add({ count, resolve }));
    },
    eventCallback(event, cbOptions = {}) {
      return {
        token: "fakeVerificationToken0123",
        team_id: teamId,
        context_team_id: teamId,
        api_app_id: appId,
        event,
        type: "event_callback",
        event_id: cbOptions.eventId ?? nextId("Ev0", 9),
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [
          { enterprise_id: null, team_id: teamId, user_id: botUserId, is_bot: true, is_enterprise_install: false },
        ],
        is_ext_shared_channel: false,
        event_context: `4-${btoa(JSON.stringify({ et: event.type, tid: teamId, aid: appId }))}`,
      };
    },
    deliver(url, body, deliverOptions = {}) {
      const raw = JSON.stringify(body);
      const timestamp = deliverOptions.timestamp ?? Math.floor(Date.now() / 1000);
      const signature =
        deliverOptions.signature ??
        `v0=${createHmac("sha256", deliverOptions.secret ?? signingSecret)
          .update(`v0:${timestamp}:${raw}`)
          .digest("hex")}`;
      return fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
          "x-slack-request-timestamp": String(timestamp),
          "x-slack-signature": signature,
          ...(deliverOptions.retryNum
            ? { "x-slack-retry-num": String(deliverOptions.retryNum), "x-slack-retry-reason": "http_timeout" }
            : {}),
        },
        body: raw,
      });
    },
    failNext(method, failure, times = 1) {
      const list = failures.get(method) ?? [];
      for (let n = 0; n < times; n++) list.push(failure);
      failures.set(method, list);
    },
    waitForCall(method, predicate = () => true) {
      const done = calls.find((c) => c.method === method && predicate(c));
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => waiters.add({ method, predicate, resolve }));
    },
    callsOf: (method) => calls.filter((c) => c.method === method),
    botMessages: (channel) => messages.filter((m) => m.channel === channel && m.bot),
    async close() {
      if (closed) return;
      closed = true;
      for (const pending of pendingAcks.values()) clearTimeout(pending.timer);
      for (const wake of socketWaiters.splice(0)) wake();
      for (const socket of sockets.values()) socket.close(1001, "going away");
      await server.stop(true);
    },
  };
  return api;
}
