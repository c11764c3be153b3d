import type { WhatsAppConfig } from "../../config/sections/channels.ts";
import { defineError } from "../../error.ts";
import type { ChannelAdapter, ChannelDeps, InboundMessage } from "../channel.ts";
import { checkNumber } from "./check-number.ts";
import {
  createGraphApi,
  DEFAULT_GRAPH_BASE,
  DEFAULT_GRAPH_VERSION,
  tokenRejected,
  WhatsAppApiError,
  WhatsAppFileTooLarge,
} from "./graph-api.ts";
import { sendWhatsAppFile, WHATSAPP_UPLOAD_CAPS } from "./send-file.ts";
import { messageTo, sendReply } from "./send-reply.ts";
import { reviveWebhookMessage } from "./webhook-payload.ts";
import { whatsappWebhookRoutes } from "./webhook-routes.ts";

export const WhatsAppNotConfigured = defineError<{ missing: string[] }>("whatsapp_not_configured");
export const WhatsAppTokenRejected = defineError("whatsapp_token_rejected");

const SETUP_HINT = "run `fermix setup --channel whatsapp`, or set it in [fermix_channels.whatsapp] in config.toml";
/** Inbound media is refused past this, whatever the gateway would take. */
export const MAX_INBOUND_MEDIA_BYTES = 25 * 1024 * 1024;
// The typing indicator lasts 25 s (or until the reply); the gateway asks every 4 s, Graph needs it far less often.
const TYPING_REFRESH_MS = 20_000;

/**
 * The WhatsApp adapter: the Cloud API (Meta's Graph API), webhooks in (signed with the app secret, on the daemon's
 * webhook port: webhook-routes.ts), text styled for WhatsApp and split at 4,096 characters out, media uploaded and
 * downloaded with the access token, reactions with any emoji. 1:1 chats only: the chat is the sender's wa_id.
 * The access token is read here once and goes nowhere but the Authorization header; every message this adapter
 * logs passes through the redactor.
 */
export function createWhatsAppChannel(deps: ChannelDeps): ChannelAdapter {
  const config = deps.config as WhatsAppConfig;
  const missing = (["access_token", "phone_number_id", "app_secret", "verify_token"] as const).filter(
    (key) => config[key] === undefined,
  );
  if (missing.length) {
    throw WhatsAppNotConfigured(
      `the WhatsApp channel is enabled but has no ${missing.join(", ")}: ${SETUP_HINT} (or WHATSAPP_${missing[0]!.toUpperCase()})`,
      { missing: [...missing] },
    );
  }
  const secret = (ref: unknown, slot: string, key: string) => {
    const value = deps.resolveSecret(ref, slot).trim();
    if (!value) throw WhatsAppNotConfigured(`the WhatsApp ${key} is empty: ${SETUP_HINT}`, { missing: [key] });
    return value;
  };
  const token = secret(config.access_token, "WHATSAPP_ACCESS_TOKEN", "access_token");
  const appSecret = secret(config.app_secret, "WHATSAPP_APP_SECRET", "app_secret");
  const verifyToken = secret(config.verify_token, "WHATSAPP_VERIFY_TOKEN", "verify_token");
  const phoneNumberId = String(config.phone_number_id).trim();
  const api = createGraphApi({
    baseUrl: config.api_base_url ?? DEFAULT_GRAPH_BASE,
    version: config.graph_version ?? DEFAULT_GRAPH_VERSION,
    token,
  });
  const redact = (text: string) =>
    api.redact(text).replaceAll(appSecret, "<app-secret>").replaceAll(verifyToken, "<verify-token>");
  const log = {
    info: (msg: string) => deps.log.info(redact(msg)),
    warn: (msg: string) => deps.log.warn(redact(msg)),
    error: (msg: string) => deps.log.error(redact(msg)),
  };
  let ingest: ((message: InboundMessage) => Promise<void> | void) | undefined;
  let lastUpdateAt: number | undefined;
  let degraded: string | undefined;
  let confirmed = false;
  const typingSent = new Map<string, number>();

  /** Every outbound call: a token Graph refuses marks the channel degraded until a call goes through again. */
  async function graph<T>(call: () => Promise<T>): Promise<T> {
    try {
      const result = await call();
      degraded = undefined;
      confirmed = true;
      return result;
    } catch (err) {
      if (tokenRejected(err)) {
        degraded = `WhatsApp refuses the access token (expired or revoked): create a permanent one and run \`fermix setup --channel whatsapp\``;
      }
      throw err;
    }
  }

  async function fetchMedia(mediaId: string, declared: number | undefined, maxBytes: number): Promise<Uint8Array> {
    const cap = Math.min(maxBytes, MAX_INBOUND_MEDIA_BYTES);
    if (declared !== undefined && declared > cap) throw tooLarge(declared, cap);
    // The URL Graph gives expires within minutes: asked for right before each download.
    const media = await graph(() =>
      api.get<{ url?: unknown; file_size?: unknown }>(encodeURIComponent(mediaId), { phone_number_id: phoneNumberId }),
    );
    if (typeof media.file_size === "number" && media.file_size > cap) throw tooLarge(media.file_size, cap);
    if (typeof media.url !== "string") {
      throw WhatsAppApiError("WhatsApp gave no URL for the media", {
        path: "media",
        status: 200,
        description: "no url",
        transient: false,
      });
    }
    const url = media.url;
    return (await graph(() => api.download(url, cap))).bytes;
  }

  for (const route of whatsappWebhookRoutes({
    verifyToken,
    appSecret,
    phoneNumberId,
    dedupe: deps.dedupe,
    fetchMedia,
    ingest: () => ingest,
    onDelivery: () => {
      lastUpdateAt = deps.now();
    },
    log,
  })) {
    deps.webhooks.register(route);
  }

  return {
    name: "whatsapp",
    capabilities: {
      editMessages: false,
      // Any emoji: WhatsApp takes them all (an empty list is "no restriction" to the react tool).
      reactions: [],
      approveButtons: false,
      maxUploadBytes: WHATSAPP_UPLOAD_CAPS.document,
      albumsBySender: true,
    },
    async start(handler) {
      const check = await checkNumber(api, phoneNumberId);
      if (!check.ok) {
        // Unreachable at boot (no network yet) is not a reason to refuse the webhooks that will come.
        if (!check.unreachable) {
          throw WhatsAppTokenRejected(redact(`${check.detail}: ${check.fix}`));
        }
        log.warn(`whatsapp: could not check the number at start (${check.detail}); taking webhooks anyway`);
      } else {
        confirmed = true;
        log.info(`whatsapp: ${check.detail}`);
      }
      ingest = handler;
    },
    async stop() {
      ingest = undefined;
    },
    revive: (raw) => reviveWebhookMessage(raw, phoneNumberId, fetchMedia),
    send: (target, text) => graph(() => sendReply(api, phoneNumberId, target, text)),
    sendFile: (target, file) => graph(() => sendWhatsAppFile(api, phoneNumberId, target, file)),
    async react(target, messageId, emoji) {
      await graph(() =>
        api.post(`${phoneNumberId}/messages`, {
          ...messageTo(target.chatId),
          type: "reaction",
          reaction: { message_id: messageId, emoji },
        }),
      );
    },
    async typing(target) {
      // Typing belongs to the message being answered (it also marks it read); none to name, none to show.
      const id = target.replyTo;
      if (!id) return;
      const now = deps.now();
      if (now - (typingSent.get(id) ?? 0) < TYPING_REFRESH_MS) return;
      for (const [old, at] of typingSent) if (now - at > 5 * 60_000) typingSent.delete(old);
      typingSent.set(id, now);
      await api.post(
        `${phoneNumberId}/messages`,
        { messaging_product: "whatsapp", status: "read", message_id: id, typing_indicator: { type: "text" } },
        { timeoutMs: 10_000 },
      );
    },
    health: () => ({
      connected: ingest !== undefined && confirmed && degraded === undefined,
      ...(lastUpdateAt !== undefined ? { lastUpdateAt } : {}),
      ...(degraded ? { degraded } : {}),
    }),
    check: () => checkNumber(api, phoneNumberId),
  };
}

function tooLarge(size: number, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return WhatsAppFileTooLarge(`the WhatsApp media is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`, {
    size,
    maxBytes,
  });
}
