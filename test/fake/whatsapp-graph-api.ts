import { createHmac } from "node:crypto";

/**
 * The WhatsApp Cloud API (Meta's Graph API) on 127.0.0.1, strict about the wire: /v<NN.N>/… paths, the Bearer
 * access token (a wrong one is Graph's 401 OAuthException code 190), JSON message sends checked the way Graph
 * checks them (messaging_product, recipient, the 4,096-character text limit, media ids that were uploaded, no
 * caption on audio, reactions and typing indicators naming messages that exist, the 24-hour customer service
 * window: error 131047), multipart media uploads with their type caps, media metadata at /{media_id} and the
 * download URL it names, served only with the Bearer token. Graph's error bodies are the real shape:
 * {error: {message, type, code, error_subcode?, error_data?, fbtrace_id}}.
 *
 * It also plays Meta's side of the webhook: `deliver` signs a payload with the app secret (X-Hub-Signature-256) and
 * POSTs it to the daemon's webhook URL; `verifySubscription` does the GET handshake. Every call is recorded.
 */

export type GraphCall = {
  method: string;
  /** The path after the version, e.g. "1234567890/messages". */
  path: string;
  version: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** A JSON body, or a multipart body's text fields. */
  body: Record<string, any>;
  file?: { filename: string; type: string; bytes: Uint8Array };
  status: number;
  answer: any;
  at: number;
};

export type SentWhatsApp = { id: string; to: string; type: string; body: Record<string, any> };

export type FakeMedia = { id: string; mime: string; bytes: Uint8Array; filename?: string };

type Waiter = { predicate: (call: GraphCall) => boolean; resolve: (call: GraphCall) => void };

export type FakeWhatsApp = {
  readonly baseUrl: string;
  readonly token: string;
  readonly phoneNumberId: string;
  readonly appSecret: string;
  readonly verifyToken: string;
  readonly displayPhoneNumber: string;
  readonly calls: GraphCall[];
  /** Messages the business number sent, in order. */
  readonly sent: SentWhatsApp[];
  /** Media a test makes downloadable, as an inbound message would reference it. */
  addMedia(bytes: Uint8Array, mime: string, filename?: string): FakeMedia;
  /** Media the adapter uploaded, by id. */
  readonly uploads: Map<string, FakeMedia & { type: string }>;
  /** Signs `payload` with the app secret (or sends `signature` as given) and POSTs it to `url`. */
  deliver(url: string, payload: unknown, options?: { signature?: string | null; raw?: string }): Promise<Response>;
  /** Records messages as delivered by Meta without sending them anywhere (tests that drive the adapter directly). */
  noteInbound(messages: WaMessage[]): void;
  /** X-Hub-Signature-256 for a raw body, as Meta computes it with the app secret. */
  sign(raw: string): string;
  /** Meta's GET handshake against `url`. */
  verifySubscription(url: string, options?: { verifyToken?: string; challenge?: string }): Promise<Response>;
  /** The next `times` calls whose path ends with `suffix` fail with this Graph error. */
  failNext(suffix: string, failure: { status: number; code: number; message: string }, times?: number): void;
  /** The first call (made or coming) matching `predicate`. */
  waitForCall(predicate: (call: GraphCall) => boolean): Promise<GraphCall>;
  /** The first text/media message sent to `to` after the call count `mark`. */
  waitForSent(to: string, mark?: number, predicate?: (m: SentWhatsApp) => boolean): Promise<SentWhatsApp>;
  close(): Promise<void>;
};

const MB = 1024 * 1024;
const UPLOAD_TYPES: Record<string, { kind: string; cap: number }> = {
  "image/jpeg": { kind: "image", cap: 5 * MB },
  "image/png": { kind: "image", cap: 5 * MB },
  "audio/aac": { kind: "audio", cap: 16 * MB },
  "audio/amr": { kind: "audio", cap: 16 * MB },
  "audio/mpeg": { kind: "audio", cap: 16 * MB },
  "audio/mp4": { kind: "audio", cap: 16 * MB },
  "audio/ogg": { kind: "audio", cap: 16 * MB },
  "video/mp4": { kind: "video", cap: 16 * MB },
  "video/3gpp": { kind: "video", cap: 16 * MB },
  "text/plain": { kind: "document", cap: 100 * MB },
  "application/pdf": { kind: "document", cap: 100 * MB },
  "application/msword": { kind: "document", cap: 100 * MB },
  "application/vnd.ms-excel": { kind: "document", cap: 100 * MB },
  "application/vnd.ms-powerpoint": { kind: "document", cap: 100 * MB },
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": { kind: "document", cap: 100 * MB },
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": { kind: "document", cap: 100 * MB },
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": { kind: "document", cap: 100 * MB },
  "image/webp": { kind: "sticker", cap: 500 * 1024 },
};
const WINDOW_MS = 24 * 60 * 60 * 1000;

class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly details?: string,
    readonly subcode?: number,
  ) {
    super(message);
  }
}
const invalidParameter = (details: string) => new GraphError(400, 100, "(#100) Invalid parameter", details);

let counter = 0;
const wamid = () => `wamid.HBgL${Date.now().toString(36)}${(counter++).toString(36).padStart(4, "0")}FQIAERgS`;

export async function startFakeWhatsApp(
  options: { token?: string; phoneNumberId?: string; appSecret?: string; verifyToken?: string } = {},
): Promise<FakeWhatsApp> {
  const token = options.token ?? "EAAGfakeAccessTokenForTests0123456789abcdefZZ";
  const phoneNumberId = options.phoneNumberId ?? "106540352242922";
  const appSecret = options.appSecret ?? "fake-app-secret-0123456789abcdef";
  const verifyToken = options.verifyToken ?? "fake-verify-token-xyz";
  const displayPhoneNumber = "+1 555-0100";
  const calls: GraphCall[] = [];
  const sent: SentWhatsApp[] = [];
  const waiters = new Set<Waiter>();
  const media = new Map<string, FakeMedia>();
  const uploads = new Map<string, FakeMedia & { type: string }>();
  const failures = new Map<string, Array<{ status: number; code: number; message: string }>>();
  // Inbound wamids the fake delivered, by sender; the last time each sender wrote (the 24-hour window).
  const inbound = new Map<string, string>();
  const lastInbound = new Map<string, number>();
  let mediaCounter = 1;

  const record = (call: GraphCall) => {
    calls.push(call);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(call)) {
        waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  };

  const errorBody = (err: GraphError) => ({
    error: {
      message: err.message,
      type: "OAuthException",
      code: err.code,
      ...(err.subcode !== undefined ? { error_subcode: err.subcode } : {}),
      ...(err.details ? { error_data: { messaging_product: "whatsapp", details: err.details } } : {}),
      fbtrace_id: "AfakeTraceId0123",
    },
  });

  function checkRecipient(to: unknown): string {
    if (typeof to !== "string" || !/^\+?\d{6,15}$/.test(to)) {
      throw invalidParameter("The parameter to is required and must be a valid WhatsApp phone number.");
    }
    const wa = to.replace(/^\+/, "");
    const last = lastInbound.get(wa);
    if (last === undefined || Date.now() - last > WINDOW_MS) {
      throw new GraphError(
        400,
        131047,
        "(#131047) Re-engagement message",
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
      );
    }
    return wa;
  }

  function sendMessage(body: Record<string, any>): unknown {
    if (body.messaging_product !== "whatsapp") {
      throw invalidParameter("The parameter messaging_product is required.");
    }
    // Mark as read, with or without a typing indicator.
    if (body.status !== undefined) {
      if (body.status !== "read") throw invalidParameter("Unsupported status");
      if (![...inbound.values()].includes(body.message_id)) {
        throw invalidParameter(`Message with id ${body.message_id} not found`);
      }
      if (body.typing_indicator !== undefined && body.typing_indicator?.type !== "text") {
        throw invalidParameter("typing_indicator.type must be text");
      }
      return { success: true };
    }
    if (body.recipient_type !== undefined && body.recipient_type !== "individual") {
      throw invalidParameter("recipient_type must be individual");
    }
    const to = checkRecipient(body.to);
    const type = body.type ?? "text";
    const content = body[type];
    if (content === undefined || typeof content !== "object") {
      throw invalidParameter(`The parameter ${type} is required.`);
    }
    switch (type) {
      case "text": {
        if (typeof content.body !== "string" || !content.body.trim()) {
          throw invalidParameter("The parameter text['body'] is required.");
        }
        if (content.body.length > 4096)
          throw invalidParameter("Param text['body'] must be at most 4096 characters long.");
        break;
      }
      case "reaction": {
        const known =
          [...inbound.values()].includes(content.message_id) || sent.some((m) => m.id === content.message_id);
        if (!known) throw invalidParameter(`Message with id ${content.message_id} not found`);
        if (typeof content.emoji !== "string" || [...content.emoji].length > 4) {
          throw invalidParameter("Param reaction['emoji'] must be a single emoji.");
        }
        break;
      }
      case "image":
      case "audio":
      case "video":
      case "document": {
        const upload = uploads.get(content.id);
        if (!upload) throw invalidParameter(`Param ${type}['id'] is not a valid media id`);
        if (type === "audio" && content.caption !== undefined)
          throw invalidParameter("Param audio['caption'] is not allowed");
        const kind = UPLOAD_TYPES[upload.type.split(";")[0]!.trim()]?.kind;
        if (kind !== type && type !== "document") {
          throw new GraphError(400, 131053, "(#131053) Media upload error", `${upload.type} cannot be sent as ${type}`);
        }
        break;
      }
      default:
        throw invalidParameter(`Unsupported message type ${type}`);
    }
    const id = wamid();
    sent.push({ id, to, type, body });
    return { messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: to }], messages: [{ id }] };
  }

  async function upload(form: Awaited<ReturnType<Request["formData"]>>, call: GraphCall): Promise<unknown> {
    if (form.get("messaging_product") !== "whatsapp") {
      throw invalidParameter("The parameter messaging_product is required.");
    }
    const file = form.get("file");
    if (!file || typeof file === "string") throw invalidParameter("The parameter file is required.");
    const type = String(form.get("type") ?? (file as Blob).type);
    const bare = type.split(";")[0]!.trim();
    const rule = UPLOAD_TYPES[bare];
    if (!rule) throw new GraphError(400, 131053, "(#131053) Media upload error", `Unsupported file type ${type}`);
    const bytes = new Uint8Array(await (file as Blob).arrayBuffer());
    if (bytes.byteLength > rule.cap) {
      throw new GraphError(400, 131053, "(#131053) Media upload error", `File is too big for ${rule.kind}`);
    }
    const filename = (file as { name?: string }).name ?? "file";
    call.file = { filename, type, bytes };
    const id = String(9_000_000_000 + mediaCounter++);
    uploads.set(id, { id, mime: bare, type, bytes, filename });
    return { id };
  }

  async function handle(request: Request, call: GraphCall): Promise<{ status: number; body: unknown }> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/media-download/")) {
      // The lookaside URL: the bytes, only with the Bearer token.
      if (request.headers.get("authorization") !== `Bearer ${token}`) {
        throw new GraphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
      }
      const item = media.get(url.pathname.slice("/media-download/".length));
      if (!item) throw new GraphError(404, 100, "Not found");
      return { status: 200, body: item };
    }
    const match = /^\/(v\d+\.\d+)\/(.+)$/.exec(url.pathname);
    if (!match) throw new GraphError(400, 2500, `Unknown path components: ${url.pathname}`);
    const auth = request.headers.get("authorization");
    if (!auth)
      throw new GraphError(
        400,
        2500,
        "An active access token must be used to query information about the current user.",
      );
    if (auth !== `Bearer ${token}`)
      throw new GraphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
    for (const [suffix, queue] of failures) {
      if (call.path.endsWith(suffix) && queue.length) {
        const failure = queue.shift()!;
        throw new GraphError(failure.status, failure.code, failure.message);
      }
    }
    const missing = (id: string) =>
      new GraphError(
        400,
        100,
        `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        undefined,
        33,
      );
    const [first, second, ...rest] = call.path.split("/");
    if (rest.length) throw new GraphError(400, 2500, "Unknown path components");
    if (request.method === "GET" && second === undefined) {
      if (first === phoneNumberId) {
        return {
          status: 200,
          body: { verified_name: "Fermix Test", display_phone_number: displayPhoneNumber, id: phoneNumberId },
        };
      }
      const item = media.get(first!);
      if (!item) throw missing(first!);
      return {
        status: 200,
        body: {
          messaging_product: "whatsapp",
          url: `${baseUrl}/media-download/${item.id}`,
          mime_type: item.mime,
          sha256: "fake",
          file_size: item.bytes.byteLength,
          id: item.id,
        },
      };
    }
    if (request.method === "POST" && first !== phoneNumberId) throw missing(first!);
    if (request.method === "POST" && second === "messages") {
      if (!(request.headers.get("content-type") ?? "").includes("application/json")) {
        throw invalidParameter("Content-Type must be application/json");
      }
      return { status: 200, body: sendMessage(call.body) };
    }
    if (request.method === "POST" && second === "media") {
      return { status: 200, body: await upload(await request.formData(), call) };
    }
    throw new GraphError(400, 100, "Unsupported request");
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const versioned = /^\/(v\d+\.\d+)\/(.+)$/.exec(url.pathname);
      const call: GraphCall = {
        method: request.method,
        path: versioned?.[2] ?? url.pathname,
        version: versioned?.[1] ?? "",
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(request.headers),
        body: {},
        status: 0,
        answer: undefined,
        at: Date.now(),
      };
      const type = request.headers.get("content-type") ?? "";
      if (request.method === "POST" && type.includes("application/json")) {
        try {
          call.body = (await request.clone().json()) as Record<string, any>;
        } catch {
          call.body = {};
        }
      } else if (request.method === "POST" && type.includes("multipart/form-data")) {
        const form = await request.clone().formData();
        for (const [name, value] of form) if (typeof value === "string") call.body[name] = value;
      }
      let response: Response;
      try {
        const { status, body } = await handle(request, call);
        if (body && typeof body === "object" && "bytes" in body && body.bytes instanceof Uint8Array) {
          const item = body as FakeMedia;
          call.status = status;
          call.answer = { bytes: item.bytes.byteLength };
          response = new Response(item.bytes as Uint8Array<ArrayBuffer>, {
            status,
            headers: { "content-type": item.mime },
          });
        } else {
          call.status = status;
          call.answer = body;
          response = Response.json(body, { status });
        }
      } catch (err) {
        if (!(err instanceof GraphError)) throw err;
        call.status = err.status;
        call.answer = errorBody(err);
        response = Response.json(call.answer, {
          status: err.status,
          headers: err.code === 190 ? { "www-authenticate": 'OAuth "Facebook Platform" "invalid_token"' } : {},
        });
      }
      record(call);
      return response;
    },
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;

  /** What Meta delivers opens the sender's 24-hour window (and names messages that can be reacted to). */
  function noteInbound(messages: Array<{ id: string; from: string }>): void {
    for (const message of messages) {
      inbound.set(message.id, message.id);
      lastInbound.set(message.from, Date.now());
    }
  }

  function waitForCall(predicate: (call: GraphCall) => boolean): Promise<GraphCall> {
    const found = calls.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => waiters.add({ predicate, resolve }));
  }

  const sign = (raw: string) => `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`;

  return {
    baseUrl,
    token,
    phoneNumberId,
    appSecret,
    verifyToken,
    displayPhoneNumber,
    calls,
    sent,
    uploads,
    addMedia(bytes, mime, filename) {
      const item = { id: String(1_000_000_000_000 + mediaCounter++), mime, bytes, ...(filename ? { filename } : {}) };
      media.set(item.id, item);
      return item;
    },
    sign,
    noteInbound,
    async deliver(url, payload, opts = {}) {
      const raw = opts.raw ?? JSON.stringify(payload);
      noteInbound(messagesOf(payload));
      const signature = opts.signature === undefined ? sign(raw) : opts.signature;
      return fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "facebookexternalua",
          ...(signature !== null ? { "x-hub-signature-256": signature } : {}),
        },
        body: raw,
      });
    },
    verifySubscription(url, opts = {}) {
      const query = new URLSearchParams({
        "hub.mode": "subscribe",
        "hub.verify_token": opts.verifyToken ?? verifyToken,
        "hub.challenge": opts.challenge ?? "1158201444",
      });
      return fetch(`${url}?${query}`);
    },
    failNext(suffix, failure, times = 1) {
      failures.set(suffix, [...(failures.get(suffix) ?? []), ...Array(times).fill(failure)]);
    },
    waitForCall,
    async waitForSent(to, mark = 0, predicate = () => true) {
      const match = (call: GraphCall) =>
        calls.indexOf(call) >= mark &&
        call.path === `${phoneNumberId}/messages` &&
        call.status === 200 &&
        call.body.to === to &&
        call.body.type !== undefined &&
        predicate(sent.find((m) => m.id === call.answer?.messages?.[0]?.id)!);
      const call = await waitForCall(match);
      return sent.find((m) => m.id === call.answer.messages[0].id)!;
    },
    async close() {
      await server.stop(true);
    },
  };
}

function messagesOf(payload: any): Array<{ id: string; from: string }> {
  const out: Array<{ id: string; from: string }> = [];
  for (const entry of payload?.entry ?? []) {
    for (const change of entry?.changes ?? []) {
      for (const message of change?.value?.messages ?? []) {
        if (typeof message?.id === "string" && typeof message?.from === "string") out.push(message);
      }
    }
  }
  return out;
}

/* ------------------------------------------------------------------ webhook payloads a test delivers */

export type WaMessage = Record<string, any> & { id: string; from: string; type: string };

let inboundCounter = 1;
const inboundId = () => `wamid.IN${Date.now().toString(36)}${(inboundCounter++).toString(36).padStart(5, "0")}`;
const now = () => String(Math.floor(Date.now() / 1000));

export function waText(from: string, body: string): WaMessage {
  return { from, id: inboundId(), timestamp: now(), type: "text", text: { body } };
}

export function waImage(from: string, item: FakeMedia, caption?: string): WaMessage {
  return {
    from,
    id: inboundId(),
    timestamp: now(),
    type: "image",
    image: { id: item.id, mime_type: item.mime, sha256: "fake", ...(caption ? { caption } : {}) },
  };
}

export function waVoice(from: string, item: FakeMedia): WaMessage {
  return {
    from,
    id: inboundId(),
    timestamp: now(),
    type: "audio",
    audio: { id: item.id, mime_type: "audio/ogg; codecs=opus", sha256: "fake", voice: true },
  };
}

export function waSticker(from: string): WaMessage {
  return {
    from,
    id: inboundId(),
    timestamp: now(),
    type: "sticker",
    sticker: { id: "777", mime_type: "image/webp", sha256: "fake", animated: false },
  };
}

/** The `messages` webhook as Meta sends it, one change for `phoneNumberId` with these messages. */
export function webhookPayload(
  phoneNumberId: string,
  messages: WaMessage[],
  names: Record<string, string> = {},
): Record<string, any> {
  const senders = [...new Set(messages.map((m) => m.from))];
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550100", phone_number_id: phoneNumberId },
              contacts: senders.map((wa) => ({ profile: { name: names[wa] ?? "Test User" }, wa_id: wa })),
              messages,
            },
            field: "messages",
          },
        ],
      },
    ],
  };
}
