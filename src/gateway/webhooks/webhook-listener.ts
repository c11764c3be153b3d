import { createLoopbackListener } from "../../net/loopback-listener.ts";
import { readCapped } from "../../net/read-capped.ts";
import type { WebhookListener, WebhookListenerState, WebhookRoute } from "./webhook-listener-contract.ts";

/** The earlier product's answers, for what no route handles itself. */
export const WEBHOOK_ANSWERS = {
  notFound: () => Response.json({ error: "Not found" }, { status: 404 }),
  failed: () => Response.json({ error: "Webhook dispatch failed" }, { status: 500 }),
  tooLarge: () => Response.json({ error: "Payload too large" }, { status: 413 }),
} as const;

/**
 * The platforms' deliveries are a few KB (a batch of WhatsApp messages, a Slack event); the port faces the internet
 * through a tunnel, so a body past this is refused unread rather than held in memory.
 */
export const MAX_WEBHOOK_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The webhook routes of the channels that need them, on their own loopback port ([fermix_web] webhook_port,
 * default 4031) — never the setup page's — so a tunnel (cloudflared, tailscale funnel, ngrok) pointed at it
 * exposes nothing else: any other path is a 404. It listens only once a channel registered a route, and a port in
 * use is a state for doctor and status, never a failed daemon start.
 */
export function createWebhookListener(opts: {
  port: number;
  log: { info(msg: string): void; error(msg: string): void };
}): WebhookListener {
  const routes = new Map<string, WebhookRoute>();

  async function handle(request: Request): Promise<Response> {
    const route = routes.get(`${request.method} ${new URL(request.url).pathname}`);
    if (!route) return WEBHOOK_ANSWERS.notFound();
    try {
      const { body: rawBody, truncated } = await readCapped(new Response(request.body), MAX_WEBHOOK_BODY_BYTES);
      if (truncated) return WEBHOOK_ANSWERS.tooLarge();
      return await route.handle(request, rawBody);
    } catch (err) {
      opts.log.error(`webhook ${route.method} ${route.path} failed: ${(err as Error)?.message ?? String(err)}`);
      return WEBHOOK_ANSWERS.failed();
    }
  }

  const listener = createLoopbackListener({
    port: opts.port,
    portKey: "[fermix_web] webhook_port",
    label: "webhooks",
    describe: () => ` (${[...routes.keys()].join(", ")})`,
    handler: handle,
    log: opts.log,
  });

  return {
    register(route: WebhookRoute): void {
      routes.set(`${route.method} ${route.path}`, route);
    },

    start(): WebhookListenerState {
      return routes.size ? listener.start() : listener.state();
    },

    stop: () => listener.stop(),
    state: () => listener.state(),
  };
}
