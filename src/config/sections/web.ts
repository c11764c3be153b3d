import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** [fermix_web] port: the setup page's, never the webhooks'. */
export const DEFAULT_WEB_PORT = 4030;
/** [fermix_web] webhook_port: its own port, so a tunnel can expose the webhooks and nothing else. */
export const DEFAULT_WEBHOOK_PORT = 4031;

const Port = lazySchema(() =>
  v.pipe(v.number(), v.integer(), v.minValue(1024, "must be 1024-65535"), v.maxValue(65535, "must be 1024-65535")),
);

/** [fermix_web]: the daemon's two loopback listeners. */
export const WebSection = lazySchema(() =>
  v.strictObject({
    /** The local setup page, on 127.0.0.1 only. */
    port: v.optional(Port),
    /** Whether the daemon serves the setup page (default true). */
    enabled: v.optional(v.boolean()),
    /** The chat platforms' webhooks, on their own loopback port. */
    webhook_port: v.optional(Port),
  }),
);
