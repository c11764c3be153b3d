import * as v from "valibot";
import type { Dedupe } from "../../gateway/webhooks/dedupe-contract.ts";
import type { WebhookRoute } from "../../gateway/webhooks/webhook-listener-contract.ts";
import type { InboundMessage } from "../channel.ts";
import { type FetchMedia, parseWebhook, WebhookEnvelope } from "./webhook-payload.ts";
import { sameSecret, validSignature } from "./webhook-signature.ts";

export const WEBHOOK_PATH = "/webhook/whatsapp";

/** The earlier product's answers, which Meta's retry logic sees: only a 2xx stops a re-delivery. */
const answers = {
  ok: () => Response.json({ ok: true }),
  unauthorized: () => Response.json({ error: "Unauthorized" }, { status: 401 }),
  invalid: () => Response.json({ error: "Invalid webhook" }, { status: 400 }),
  failed: () => Response.json({ error: "Webhook dispatch failed" }, { status: 500 }),
};

export type WhatsAppRoutesDeps = {
  verifyToken: string;
  appSecret: string;
  phoneNumberId: string;
  dedupe: Dedupe;
  fetchMedia: FetchMedia;
  /** The gateway's ingest once the channel has started; before that a delivery is refused so Meta retries it. */
  ingest(): ((message: InboundMessage) => Promise<void> | void) | undefined;
  /** A signed delivery arrived (health: the last update). */
  onDelivery(): void;
  log: { info(msg: string): void; warn(msg: string): void };
};

/**
 * GET /webhook/whatsapp answers Meta's subscription handshake (hub.mode=subscribe, the verify token compared in
 * constant time, hub.challenge echoed as plain text). POST takes a delivery: the signature is checked over the raw
 * body before anything is parsed (401), then the envelope (400), then each message once per 24 h (a re-delivery
 * makes no second turn; a message whose dispatch failed is forgotten again, so Meta's retry can run it: 500).
 */
export function whatsappWebhookRoutes(deps: WhatsAppRoutesDeps): WebhookRoute[] {
  return [
    {
      method: "GET",
      path: WEBHOOK_PATH,
      async handle(request) {
        const query = new URL(request.url).searchParams;
        const challenge = query.get("hub.challenge");
        if (query.get("hub.mode") !== "subscribe" || !challenge) return answers.invalid();
        if (!sameSecret(deps.verifyToken, query.get("hub.verify_token"))) {
          deps.log.warn("whatsapp: refused a webhook subscription with the wrong verify token");
          return answers.unauthorized();
        }
        deps.log.info("whatsapp: Meta verified the webhook subscription");
        return new Response(challenge, { headers: { "content-type": "text/plain; charset=utf-8" } });
      },
    },
    {
      method: "POST",
      path: WEBHOOK_PATH,
      async handle(request, rawBody) {
        if (!validSignature(deps.appSecret, rawBody, request.headers.get("x-hub-signature-256"))) {
          deps.log.warn("whatsapp: refused a webhook whose X-Hub-Signature-256 does not match the app secret");
          return answers.unauthorized();
        }
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder().decode(rawBody));
        } catch {
          return answers.invalid();
        }
        const envelope = v.safeParse(WebhookEnvelope, json);
        if (!envelope.success) return answers.invalid();
        const ingest = deps.ingest();
        if (!ingest) return answers.failed();
        deps.onDelivery();
        const { messages, skipped } = parseWebhook(envelope.output, deps.phoneNumberId, deps.fetchMedia);
        if (skipped)
          deps.log.warn(`whatsapp: skipped ${skipped} webhook message(s) of a shape this fermix does not read`);
        let failed = false;
        for (const message of messages) {
          if (!deps.dedupe.first("whatsapp", message.id)) continue;
          try {
            // The 200 goes back only once the message is stored: a crash before it makes Meta deliver it again.
            await ingest(message);
          } catch (err) {
            deps.dedupe.forget("whatsapp", message.id);
            deps.log.warn(`whatsapp: message ${message.id} was not dispatched: ${(err as Error)?.message ?? err}`);
            failed = true;
          }
        }
        return failed ? answers.failed() : answers.ok();
      },
    },
  ];
}
