import type { WebhookRoute } from "../../gateway/webhooks/webhook-listener-contract.ts";
import { verifySlackSignature } from "./request-signature.ts";

export const WEBHOOK_PATH = "/webhook/slack";
/** Refused signatures in a row after which the channel says the signing secret is probably wrong. */
export const BAD_SIGNATURES_DEGRADED = 3;

export type WebhookRouteDeps = {
  signingSecret: string;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void };
  /** One event_callback's `event`, with its id: handed on after the answer has gone. */
  /** Resolves once the message is stored: only then does Slack get its 200. */
  onEvent(event: unknown, eventId: string | undefined): Promise<void> | void;
};

const answer = {
  ok: () => Response.json({ ok: true }),
  unauthorized: () => Response.json({ error: "Unauthorized" }, { status: 401 }),
  invalid: () => Response.json({ error: "Invalid webhook" }, { status: 400 }),
  // Not taken in: Slack retries a 5xx, and the retry is handled once.
  failed: () => Response.json({ error: "Not received" }, { status: 500 }),
};

/**
 * POST /webhook/slack, the Events API's Request URL (mode = "webhook"): the signature is checked over the raw body
 * before anything parses it (401 {"error":"Unauthorized"} and nothing else happens otherwise); url_verification is
 * answered with its challenge; an event_callback is answered 200 {"ok":true} at once and handled after — Slack
 * re-sends an event it has not seen answered within 3 s, and a turn takes far longer.
 */
export function createSlackWebhookRoute(deps: WebhookRouteDeps) {
  let lastAt: number | undefined;
  let refusedInARow = 0;

  const route: WebhookRoute = {
    method: "POST",
    path: WEBHOOK_PATH,
    async handle(request, rawBody) {
      const verified = verifySlackSignature(request.headers, rawBody, deps.signingSecret, deps.now());
      if (!verified.ok) {
        refusedInARow += 1;
        deps.log.warn(`slack: refused a webhook request: ${verified.reason}`);
        return answer.unauthorized();
      }
      refusedInARow = 0;
      lastAt = deps.now();
      let body: { type?: unknown; challenge?: unknown; event?: unknown; event_id?: unknown };
      try {
        body = JSON.parse(new TextDecoder().decode(rawBody));
      } catch {
        return answer.invalid();
      }
      if (body?.type === "url_verification") {
        if (typeof body.challenge !== "string") return answer.invalid();
        deps.log.info("slack: answered the Request URL's verification");
        return Response.json({ challenge: body.challenge });
      }
      if (body?.type === "event_callback") {
        const eventId = typeof body.event_id === "string" ? body.event_id : undefined;
        // The 200 goes back once the message is stored: a crash before it makes Slack deliver it again.
        try {
          await deps.onEvent(body.event, eventId);
        } catch (err) {
          deps.log.warn(`slack: an event could not be taken in: ${(err as Error)?.message ?? err}`);
          return answer.failed();
        }
      }
      // Anything else (app_rate_limited…) is acknowledged and needs nothing.
      return answer.ok();
    },
  };

  return {
    route,
    /** When the last request Slack signed arrived, and whether signatures keep failing. */
    health(): { lastUpdateAt?: number; degraded?: string } {
      return {
        ...(lastAt !== undefined ? { lastUpdateAt: lastAt } : {}),
        ...(refusedInARow >= BAD_SIGNATURES_DEGRADED
          ? {
              degraded: `the last ${refusedInARow} requests to ${WEBHOOK_PATH} failed the signature check: signing_secret in [fermix_channels.slack] may not be the app's Signing Secret (Basic Information)`,
            }
          : {}),
      };
    },
  };
}
