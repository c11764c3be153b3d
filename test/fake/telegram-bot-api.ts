/**
 * A Telegram Bot API server on 127.0.0.1, strict about the wire: POST (or GET) /bot<token>/<method> with JSON,
 * multipart or form bodies; the real answers `{ok, result}` / `{ok:false, error_code, description, parameters}`
 * with the real descriptions; getUpdates as a long poll the test feeds; files served at /file/bot<token>/<path>.
 * What the adapter sends is checked the way Telegram checks it — HTML parse mode by a real parser of the tags
 * Telegram accepts, the 4,096-unit text limit, callback_data ≤ 64 bytes, reactions from Telegram's list, replies
 * and edits to messages that exist — and every call is recorded.
 */

export type UploadedFile = { filename: string; type: string; bytes: Uint8Array };

export type TelegramCall = {
  method: string;
  /** Parameters as sent; in a multipart body, JSON-looking fields (reply_markup…) are parsed back. */
  params: Record<string, any>;
  /** Multipart file fields. */
  files: Record<string, UploadedFile>;
  /** The HTTP status the fake answered with (0 while the answer is pending). */
  status: number;
  /** The answer's body. */
  answer: any;
  /** For sendMessage/editMessageText/captions: the text as Telegram keeps it (tags parsed out), and its entities. */
  parsed?: { text: string; entities: number };
  at: number;
  /** Resolves with this call once the fake has answered it. */
  answered: Promise<TelegramCall>;
};

/** A message the bot sent, as the fake keeps it. */
export type BotMessage = {
  chatId: string;
  messageId: number;
  text: string;
  html?: string;
  replyMarkup?: any;
  document?: UploadedFile;
};

type Failure =
  | { status: 409 }
  | { status: 429; retryAfter: number }
  | { status: 500 | 502 | 400 | 401 | 404; description?: string }
  /** The answer starts (200, headers) and the connection drops mid-body. */
  | { cut: true };

type Waiter = { method: string; predicate: (call: TelegramCall) => boolean; resolve: (c: TelegramCall) => void };

export type FakeTelegram = {
  /** What `api_base_url` is set to. */
  readonly baseUrl: string;
  readonly token: string;
  readonly bot: { id: number; username: string; first_name: string };
  readonly calls: TelegramCall[];
  /** Messages the bot sent and still has (edits applied, deletions removed). */
  readonly sent: Map<string, BotMessage>;
  /** Queues updates for getUpdates (update_id assigned when absent) and wakes a waiting long poll. */
  pushUpdate(...updates: Record<string, any>[]): Record<string, any>[];
  /** The next `times` calls of `method` fail this way (after the token check). */
  failNext(method: string, failure: Failure, times?: number): void;
  /**
   * Makes a file downloadable through getFile; returns what a message's photo/voice/document field holds.
   * `declaredSize` is what the message and getFile claim; `streamed` serves it chunked, with no Content-Length.
   */
  addFile(bytes: Uint8Array, options?: { path?: string; declaredSize?: number; streamed?: boolean }): FakeFile;
  /**
   * Resolves with the first call (already made or coming) of `method` that matches, as it arrives: a held long
   * poll's `status` is 0 until it is answered.
   */
  waitForCall(method: string, predicate?: (call: TelegramCall) => boolean): Promise<TelegramCall>;
  /** Calls of `method`, in order. */
  callsOf(method: string): TelegramCall[];
  close(): Promise<void>;
};

export type FakeFile = { file_id: string; file_unique_id: string; file_size: number };

export const CONFLICT_DESCRIPTION =
  "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";

/** Telegram's free reaction set (the adapter's 24 are a subset). */
const TELEGRAM_REACTION_SET = new Set(
  "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡".split(
    " ",
  ),
);
const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);
const FILE_FIELDS: Record<string, string> = {
  sendPhoto: "photo",
  sendDocument: "document",
  sendAudio: "audio",
  sendVideo: "video",
  sendVoice: "voice",
};
const METHODS = [
  "getMe",
  "getUpdates",
  "sendMessage",
  "editMessageText",
  "editMessageReplyMarkup",
  "deleteMessage",
  "sendChatAction",
  "setMessageReaction",
  "answerCallbackQuery",
  "getFile",
  ...Object.keys(FILE_FIELDS),
];
const CANONICAL = new Map(METHODS.map((m) => [m.toLowerCase(), m]));

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}
const bad = (description: string) => new ApiError(400, `Bad Request: ${description}`);

export async function startFakeTelegram(
  options: { token?: string; bot?: { id: number; username: string } } = {},
): Promise<FakeTelegram> {
  const token = options.token ?? "123456789:AAHfakeTokenForTestsOnly_abcdefghijklmno";
  const bot = {
    id: options.bot?.id ?? Number(token.split(":")[0]),
    username: options.bot?.username ?? "fermix_test_bot",
    first_name: "Fermix",
  };
  const calls: TelegramCall[] = [];
  const waiters = new Set<Waiter>();
  const queue: Record<string, any>[] = [];
  const failures = new Map<string, Failure[]>();
  const files = new Map<string, { bytes: Uint8Array; path: string; declaredSize: number; streamed: boolean }>();
  const knownChats = new Set<string>();
  const inbound = new Set<string>(); // `${chat}:${message_id}` of users' messages
  const sent = new Map<string, BotMessage>();
  const callbacks = new Map<string, { answered: boolean }>();
  let nextUpdateId = 100_000;
  let nextMessageId = 5000;
  let fileCounter = 0;
  let closed = false;
  // The long poll waiting now, if any: a newer getUpdates ends it with 409, as Telegram does.
  let pending: { wake(): void; conflict(): void } | undefined;

  const record = (call: TelegramCall) => {
    calls.push(call);
    for (const waiter of [...waiters]) {
      if (waiter.method === call.method && waiter.predicate(call)) {
        waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

  function noteChat(chat: any) {
    if (chat && chat.id !== undefined) knownChats.add(String(chat.id));
  }

  function noteUpdate(update: Record<string, any>) {
    const message = update.message ?? update.edited_message;
    if (message) {
      noteChat(message.chat);
      inbound.add(`${message.chat.id}:${message.message_id}`);
    }
    const query = update.callback_query;
    if (query) {
      callbacks.set(String(query.id), { answered: false });
      if (query.message) noteChat(query.message.chat);
    }
  }

  function chatOf(params: Record<string, any>): string {
    if (params.chat_id === undefined || params.chat_id === "") throw bad("chat_id is empty");
    const chat = String(params.chat_id);
    if (!knownChats.has(chat)) throw bad("chat not found");
    return chat;
  }

  function messageExists(chat: string, id: unknown): boolean {
    return inbound.has(`${chat}:${id}`) || sent.has(`${chat}:${id}`);
  }

  function checkMarkup(markup: any): void {
    if (markup === undefined) return;
    const rows = markup?.inline_keyboard;
    if (!Array.isArray(rows)) throw bad("can't parse reply keyboard markup JSON object");
    for (const row of rows) {
      if (!Array.isArray(row)) throw bad("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
      for (const button of row) {
        if (typeof button?.text !== "string" || !button.text)
          throw bad("can't parse inline keyboard button: Text must be non-empty");
        const data = button.callback_data;
        if (data === undefined && button.url === undefined) {
          throw bad(
            "can't parse inline keyboard button: InlineKeyboardButton must have exactly one of the optional fields",
          );
        }
        if (data !== undefined) {
          const size = new TextEncoder().encode(String(data)).length;
          if (size < 1 || size > 64) throw bad("BUTTON_DATA_INVALID");
        }
      }
    }
  }

  /** The text as Telegram keeps it, checked: parse mode, emptiness, length. */
  function parseText(
    text: unknown,
    parseMode: unknown,
    limit: number,
    empty: string,
  ): { text: string; entities: number } {
    if (typeof text !== "string" || !text.trim()) throw bad(empty);
    let parsed = { text, entities: 0 };
    if (parseMode !== undefined && parseMode !== "") {
      const mode = String(parseMode).toLowerCase();
      if (mode === "html") {
        const result = parseTelegramHtml(text);
        if ("error" in result) throw bad(`can't parse entities: ${result.error}`);
        parsed = result;
      } else if (mode !== "markdown" && mode !== "markdownv2") throw bad(`unsupported parse_mode`);
    }
    const trimmed = parsed.text.trim();
    if (!trimmed) throw bad(empty);
    if (trimmed.length > limit) throw bad(limit === 4096 ? "message is too long" : "message caption is too long");
    return { text: trimmed, entities: parsed.entities };
  }

  function checkReply(chat: string, params: Record<string, any>) {
    const reply = params.reply_parameters;
    if (reply === undefined) return;
    if (typeof reply?.message_id !== "number") throw bad("can't parse reply parameters JSON object");
    if (!messageExists(chat, reply.message_id) && !reply.allow_sending_without_reply) {
      throw bad("message to be replied not found");
    }
  }

  async function getUpdates(params: Record<string, any>): Promise<unknown> {
    if (pending) pending.conflict();
    const offset = params.offset === undefined ? 0 : Number(params.offset);
    const limit = Math.min(Math.max(Number(params.limit ?? 100), 1), 100);
    const timeout = Number(params.timeout ?? 0);
    const allowed: string[] | undefined =
      Array.isArray(params.allowed_updates) && params.allowed_updates.length ? params.allowed_updates : undefined;
    // A positive offset confirms every update below it; a negative one keeps only the newest -offset updates.
    if (offset > 0) while (queue.length && queue[0]!.update_id < offset) queue.shift();
    if (offset < 0) queue.splice(0, Math.max(0, queue.length + offset));
    const visible = () =>
      queue.filter((u) => !allowed || allowed.some((type) => u[type] !== undefined)).slice(0, limit);
    if (visible().length || timeout <= 0 || closed) return visible();
    const outcome = await new Promise<"wake" | "conflict" | "timeout">((resolve) => {
      const timer = setTimeout(() => settle("timeout"), timeout * 1000);
      const settle = (how: "wake" | "conflict" | "timeout") => {
        clearTimeout(timer);
        if (pending === entry) pending = undefined;
        resolve(how);
      };
      const entry = { wake: () => settle("wake"), conflict: () => settle("conflict") };
      pending = entry;
    });
    if (outcome === "conflict") throw new ApiError(409, CONFLICT_DESCRIPTION);
    return visible();
  }

  async function handle(
    method: string,
    params: Record<string, any>,
    upload: Record<string, UploadedFile>,
    call: TelegramCall,
  ): Promise<unknown> {
    switch (method) {
      case "getMe":
        return { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username, can_join_groups: true };
      case "getUpdates":
        return getUpdates(params);
      case "sendMessage": {
        const chat = chatOf(params);
        const parsed = parseText(params.text, params.parse_mode, 4096, "message text is empty");
        call.parsed = parsed;
        checkReply(chat, params);
        checkMarkup(params.reply_markup);
        const messageId = nextMessageId++;
        sent.set(`${chat}:${messageId}`, {
          chatId: chat,
          messageId,
          text: parsed.text,
          html: params.parse_mode ? params.text : undefined,
          replyMarkup: params.reply_markup,
        });
        return {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(chat) },
          text: parsed.text,
        };
      }
      case "editMessageText": {
        const chat = chatOf(params);
        const message = sent.get(`${chat}:${params.message_id}`);
        if (!message) throw bad("message to edit not found");
        const parsed = parseText(params.text, params.parse_mode, 4096, "message text is empty");
        call.parsed = parsed;
        checkMarkup(params.reply_markup);
        if (
          parsed.text === message.text &&
          JSON.stringify(params.reply_markup ?? null) === JSON.stringify(message.replyMarkup ?? null)
        ) {
          throw bad(
            "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
          );
        }
        message.text = parsed.text;
        message.html = params.parse_mode ? params.text : undefined;
        message.replyMarkup = params.reply_markup;
        return { message_id: message.messageId, chat: { id: Number(chat) }, text: parsed.text };
      }
      case "editMessageReplyMarkup": {
        const chat = chatOf(params);
        const message = sent.get(`${chat}:${params.message_id}`);
        if (!message) throw bad("message to edit not found");
        checkMarkup(params.reply_markup);
        const now = params.reply_markup?.inline_keyboard?.length ? params.reply_markup : undefined;
        const before = message.replyMarkup?.inline_keyboard?.length ? message.replyMarkup : undefined;
        if (JSON.stringify(now ?? null) === JSON.stringify(before ?? null)) {
          throw bad(
            "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
          );
        }
        message.replyMarkup = now;
        return { message_id: message.messageId, chat: { id: Number(chat) }, text: message.text };
      }
      case "deleteMessage": {
        const chat = chatOf(params);
        if (!sent.delete(`${chat}:${params.message_id}`) && !inbound.delete(`${chat}:${params.message_id}`)) {
          throw bad("message to delete not found");
        }
        return true;
      }
      case "sendChatAction":
        chatOf(params);
        if (!CHAT_ACTIONS.has(String(params.action))) throw bad("wrong parameter action in request");
        return true;
      case "setMessageReaction": {
        const chat = chatOf(params);
        if (!messageExists(chat, params.message_id)) throw bad("MESSAGE_ID_INVALID");
        const reactions = params.reaction ?? [];
        if (!Array.isArray(reactions)) throw bad("can't parse reaction types JSON object");
        for (const r of reactions) {
          if (r?.type !== "emoji" || !TELEGRAM_REACTION_SET.has(String(r.emoji).replace(/\uFE0F/g, ""))) {
            throw bad("REACTION_INVALID");
          }
        }
        return true;
      }
      case "answerCallbackQuery": {
        const query = callbacks.get(String(params.callback_query_id));
        if (!query || query.answered) throw bad("query is too old and response timeout expired or query ID is invalid");
        query.answered = true;
        return true;
      }
      case "getFile": {
        const file = files.get(String(params.file_id ?? ""));
        if (!file) throw bad("invalid file_id");
        if (file.declaredSize > 20 * 1024 * 1024) throw bad("file is too big");
        return {
          file_id: params.file_id,
          file_unique_id: `u${params.file_id}`,
          file_size: file.declaredSize,
          file_path: file.path,
        };
      }
      default: {
        const field = FILE_FIELDS[method]!;
        const chat = chatOf(params);
        const file = upload[field];
        if (!file && typeof params[field] !== "string") throw bad(`there is no ${field} in the request`);
        if (params.caption !== undefined && params.caption !== "") {
          call.parsed = parseText(params.caption, params.parse_mode, 1024, "message caption is empty");
        }
        if (file && file.bytes.byteLength > 50 * 1024 * 1024) throw new ApiError(413, "Request Entity Too Large");
        if (method === "sendPhoto" && file && file.bytes.byteLength > 10 * 1024 * 1024)
          throw bad("PHOTO_INVALID_DIMENSIONS");
        checkReply(chat, params);
        const messageId = nextMessageId++;
        sent.set(`${chat}:${messageId}`, {
          chatId: chat,
          messageId,
          text: call.parsed?.text ?? "",
          ...(file ? { document: file } : {}),
        });
        return { message_id: messageId, chat: { id: Number(chat) }, [field]: { file_id: `sent-${messageId}` } };
      }
    }
  }

  async function readParams(
    req: Request,
    url: URL,
  ): Promise<{ params: Record<string, any>; upload: Record<string, UploadedFile> }> {
    const params: Record<string, any> = Object.fromEntries(url.searchParams);
    const upload: Record<string, UploadedFile> = {};
    const type = req.headers.get("content-type") ?? "";
    if (type.startsWith("application/json")) {
      const text = await req.text();
      if (text) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw bad("can't parse JSON object");
        }
        Object.assign(params, body);
      }
    } else if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
      const form = await req.formData();
      for (const [name, value] of form.entries()) {
        if (typeof value === "string") params[name] = jsonish(value);
        else
          upload[name] = { filename: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
      }
    } else {
      await req.arrayBuffer();
    }
    return { params, upload };
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const fileRoute = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (fileRoute) {
        const path = decodeURIComponent(fileRoute[2]!);
        const file = [...files.values()].find((f) => f.path === path);
        if (fileRoute[1] !== token || !file) return json(404, { ok: false, error_code: 404, description: "Not Found" });
        if (!file.streamed) {
          return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
            headers: { "content-type": "application/octet-stream" },
          });
        }
        let at = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at >= file.bytes.byteLength) return controller.close();
            controller.enqueue(file.bytes.slice(at, at + 16_384));
            at += 16_384;
          },
        });
        return new Response(stream, { headers: { "content-type": "application/octet-stream" } });
      }
      const route = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
      const method = route ? CANONICAL.get(route[2]!.toLowerCase()) : undefined;
      let answered!: (call: TelegramCall) => void;
      const call: TelegramCall = {
        method: method ?? route?.[2] ?? url.pathname,
        params: {},
        files: {},
        status: 0,
        answer: undefined,
        at: Date.now(),
        answered: new Promise((resolve) => {
          answered = resolve;
        }),
      };
      // Recorded as it arrives (a held long poll is visible while it waits); status and answer follow.
      let recorded = false;
      const arrive = () => {
        if (!recorded) record(call);
        recorded = true;
      };
      const finish = (response: Response, body: unknown) => {
        call.status = response.status;
        call.answer = body;
        arrive();
        answered(call);
        return response;
      };
      const fail = (status: number, description: string, parameters?: Record<string, unknown>) => {
        const body = { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) };
        return finish(json(status, body), body);
      };
      // A token that is not token-shaped is a path Telegram does not serve; a wrong one is refused.
      if (!route || !/^\d+:[\w-]+$/.test(route[1]!)) return fail(404, "Not Found");
      if (route[1] !== token) return fail(401, "Unauthorized");
      if (!method) return fail(404, "Not Found");
      try {
        const { params, upload } = await readParams(req, url);
        call.params = params;
        call.files = upload;
        arrive();
        const injected = failures.get(method)?.shift();
        if (injected) {
          if ("cut" in injected) {
            const body = new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode('{"ok":true,"res'));
                // Bun prints this error; it is the fake cutting the answer on purpose.
                controller.error(new Error("the fake Bot API cut this answer on purpose (failNext cut)"));
              },
            });
            return finish(
              new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
              "(cut)",
            );
          }
          if (injected.status === 409) return fail(409, CONFLICT_DESCRIPTION);
          if (injected.status === 429) {
            return fail(429, `Too Many Requests: retry after ${injected.retryAfter}`, {
              retry_after: injected.retryAfter,
            });
          }
          return fail(
            injected.status,
            injected.description ?? (injected.status >= 500 ? "Internal Server Error" : "Bad Request"),
          );
        }
        const result = await handle(method, params, upload, call);
        const body = { ok: true, result };
        return finish(json(200, body), body);
      } catch (err) {
        if (err instanceof ApiError) return fail(err.status, err.description, err.parameters);
        throw err;
      }
    },
  });

  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    token,
    bot,
    calls,
    sent,
    pushUpdate(...updates) {
      for (const update of updates) {
        update.update_id ??= nextUpdateId++;
        nextUpdateId = Math.max(nextUpdateId, update.update_id + 1);
        noteUpdate(update);
        queue.push(update);
      }
      pending?.wake();
      return updates;
    },
    failNext(method, failure, times = 1) {
      const list = failures.get(method) ?? [];
      for (let n = 0; n < times; n++) list.push(failure);
      failures.set(method, list);
    },
    addFile(bytes, fileOptions = {}) {
      fileCounter += 1;
      const fileId = `AgACAgFake${fileCounter}`;
      files.set(fileId, {
        bytes,
        path: fileOptions.path ?? `documents/file_${fileCounter}.bin`,
        declaredSize: fileOptions.declaredSize ?? bytes.byteLength,
        streamed: fileOptions.streamed ?? false,
      });
      return {
        file_id: fileId,
        file_unique_id: `AQADFake${fileCounter}`,
        file_size: fileOptions.declaredSize ?? bytes.byteLength,
      };
    },
    waitForCall(method, predicate = () => true) {
      const done = calls.find((c) => c.method === method && predicate(c));
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => waiters.add({ method, predicate, resolve }));
    },
    callsOf: (method) => calls.filter((c) => c.method === method),
    async close() {
      if (closed) return;
      closed = true;
      pending?.wake();
      await server.stop(true);
    },
  };
}

function jsonish(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/* ------------------------------------------------------------------ updates a test pushes */

let nextInboundId = 1000;
let nextCallbackId = 1;

type From = { fromId: number | string; username?: string; firstName?: string };
type Where = {
  chatId: number | string;
  chatType?: "private" | "group" | "supergroup" | "channel";
  threadId?: number;
  /** When it was sent, unix seconds, as Telegram's clock says (default: now). */
  date?: number;
};

function baseMessage(o: From & Where & { messageId?: number }) {
  const chatType = o.chatType ?? (Number(o.chatId) < 0 ? "supergroup" : "private");
  return {
    message_id: o.messageId ?? nextInboundId++,
    ...(o.threadId !== undefined ? { message_thread_id: o.threadId, is_topic_message: true } : {}),
    from: {
      id: Number(o.fromId),
      is_bot: false,
      first_name: o.firstName ?? "Test",
      ...(o.username ? { username: o.username } : {}),
    },
    chat: { id: Number(o.chatId), type: chatType },
    date: o.date ?? Math.floor(Date.now() / 1000),
  };
}

export function textMessage(o: From & Where & { text: string; messageId?: number }) {
  return { message: { ...baseMessage(o), text: o.text } };
}

export function photoMessage(o: From & Where & { file: FakeFile; caption?: string; mediaGroupId?: string }) {
  // Telegram lists the sizes smallest first; the adapter takes the largest.
  const small = {
    file_id: `${o.file.file_id}-s`,
    file_unique_id: `${o.file.file_unique_id}-s`,
    file_size: 1200,
    width: 90,
    height: 60,
  };
  const large = { ...o.file, width: 1280, height: 853 };
  return {
    message: {
      ...baseMessage(o),
      photo: [small, large],
      ...(o.caption ? { caption: o.caption } : {}),
      ...(o.mediaGroupId ? { media_group_id: o.mediaGroupId } : {}),
    },
  };
}

export function albumPart(o: From & Where & { file: FakeFile; mediaGroupId: string; caption?: string }) {
  return photoMessage(o);
}

export function voiceMessage(o: From & Where & { file: FakeFile; caption?: string; duration?: number }) {
  return {
    message: {
      ...baseMessage(o),
      voice: { ...o.file, duration: o.duration ?? 3, mime_type: "audio/ogg" },
      ...(o.caption ? { caption: o.caption } : {}),
    },
  };
}

export function callbackQuery(o: From & Where & { messageId: number; data: string; id?: string }) {
  return {
    callback_query: {
      id: o.id ?? `${Date.now()}${nextCallbackId++}`,
      from: {
        id: Number(o.fromId),
        is_bot: false,
        first_name: o.firstName ?? "Test",
        ...(o.username ? { username: o.username } : {}),
      },
      chat_instance: "-123456789",
      message: { ...baseMessage({ ...o, fromId: 0 }), message_id: o.messageId, text: "(the bot's message)" },
      data: o.data,
    },
  };
}

/* ------------------------------------------------------------------ Telegram's HTML parse mode */

const SUPPORTED_TAGS = new Set([
  "a",
  "b",
  "strong",
  "i",
  "em",
  "s",
  "strike",
  "del",
  "u",
  "ins",
  "tg-spoiler",
  "tg-emoji",
  "span",
  "pre",
  "code",
  "blockquote",
]);
const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * Telegram's HTML parse mode as its parser behaves: only its tags, every start tag closed by the matching end tag,
 * `&lt; &gt; &amp; &quot;` and numeric references decoded (any other `&` is text). Errors carry Telegram's wording
 * and UTF-8 byte offsets. Returns the text Telegram keeps and how many entities it made.
 */
export function parseTelegramHtml(html: string): { text: string; entities: number } | { error: string } {
  const bytesBefore = (index: number) => new TextEncoder().encode(html.slice(0, index)).length;
  const stack: { tag: string; start: number }[] = [];
  let text = "";
  let entities = 0;
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === "&") {
      const ref = /^&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/.exec(html.slice(i, i + 12));
      const name = ref?.[1];
      if (name && (name.startsWith("#") || name in NAMED_ENTITIES)) {
        text += name.startsWith("#x")
          ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
          : name.startsWith("#")
            ? String.fromCodePoint(Number(name.slice(1)))
            : NAMED_ENTITIES[name]!;
        i += ref![0].length;
        continue;
      }
      text += c;
      i += 1;
      continue;
    }
    if (c !== "<") {
      text += c;
      i += 1;
      continue;
    }
    const close = html.indexOf(">", i);
    if (html[i + 1] === "/") {
      if (close < 0) return { error: `Unclosed end tag at byte offset ${bytesBefore(i)}` };
      const name = html
        .slice(i + 2, close)
        .trim()
        .toLowerCase();
      const open = stack.pop();
      if (!open) return { error: `Unexpected end tag at byte offset ${bytesBefore(i)}` };
      if (open.tag !== name) {
        return {
          error: `Unmatched end tag at byte offset ${bytesBefore(i)}, expected "</${open.tag}>", found "</${name}>"`,
        };
      }
      if (text.length > open.start) entities += 1;
      i = close + 1;
      continue;
    }
    const nameMatch = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(i));
    const name = nameMatch?.[1]?.toLowerCase() ?? "";
    if (!nameMatch || !SUPPORTED_TAGS.has(name)) {
      return { error: `Unsupported start tag "${name}" at byte offset ${bytesBefore(i)}` };
    }
    if (close < 0) return { error: `Unclosed start tag at byte offset ${bytesBefore(i)}` };
    const attributes = parseAttributes(html.slice(i + nameMatch[0].length, close));
    if (typeof attributes === "string")
      return { error: `${attributes} in the tag "${name}" at byte offset ${bytesBefore(i)}` };
    if (name === "span" && attributes.class !== "tg-spoiler") {
      return { error: `Tag "span" must have class "tg-spoiler" at byte offset ${bytesBefore(i)}` };
    }
    if (name === "a" && attributes.href === undefined) {
      // Telegram accepts <a> without href as plain text; the adapter never means that.
      return { error: `Tag "a" must have attribute "href" at byte offset ${bytesBefore(i)}` };
    }
    // In <pre><code class="language-x">, the two tags make one entity.
    if (name === "code" && stack.at(-1)?.tag === "pre") entities -= 1;
    stack.push({ tag: name, start: text.length });
    i = close + 1;
  }
  const open = stack.pop();
  if (open) return { error: `Can't find end tag corresponding to start tag "${open.tag}"` };
  return { text, entities };
}

function parseAttributes(source: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  let rest = source.trim().replace(/\/$/, "").trim();
  while (rest) {
    const m = /^([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?\s*/.exec(rest);
    if (!m) return "Empty attribute name";
    out[m[1]!.toLowerCase()] = decode(m[2] ?? m[3] ?? m[4] ?? "");
    rest = rest.slice(m[0].length);
  }
  return out;
}

function decode(value: string): string {
  return value.replace(/&(lt|gt|amp|quot);/g, (_, n: string) => NAMED_ENTITIES[n]!);
}
