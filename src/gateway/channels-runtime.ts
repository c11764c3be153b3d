import type { ChannelAdapter, ChannelDeps } from "../channels/channel.ts";
import { withEnvOverlay } from "../channels/env-overlay.ts";
import { CHANNELS, enabledChannels } from "../channels/registry.ts";
import type { Config } from "../config/schema.ts";
import { DEFAULT_WEBHOOK_PORT } from "../config/sections/web.ts";
import { channelAccess } from "./channel-access.ts";
import type { ChannelState, ChannelsRuntime } from "./channels-runtime-contract.ts";
import type { Gateway } from "./gateway-contract.ts";
import { createDedupe } from "./webhooks/dedupe.ts";
import type { Dedupe } from "./webhooks/dedupe-contract.ts";
import { createWebhookListener } from "./webhooks/webhook-listener.ts";

/** How long a channel may take to start before the daemon goes on without it (it keeps trying on its own). */
export const CHANNEL_START_WAIT_MS = 10_000;

export type ChannelsRuntimeDeps = {
  config: Config;
  env: Readonly<Record<string, string | undefined>>;
  gateway: Gateway;
  resolveSecret: ChannelDeps["resolveSecret"];
  log: ChannelDeps["log"];
  now: () => number;
  /** The webhook dedupe window; in memory.db in the daemon (a retry after a restart is still a repeat). */
  dedupe?: Dedupe;
  /** Each channel's read position, kept across restarts (memory.db). */
  cursors?: { load(channel: string): string | undefined; save(channel: string, value: string): void };
};

/**
 * The daemon's chat channels: each enabled one is loaded (its SDK only then), checked (who may talk to it) and
 * started beside the others with a bounded wait, so a platform that hangs or refuses never holds up the daemon or
 * a turn; its trouble becomes a state that `fermix channels status` and doctor show.
 */
export function createChannelsRuntime(deps: ChannelsRuntimeDeps): ChannelsRuntime {
  const adapters = new Map<string, ChannelAdapter>();
  const webhooks = createWebhookListener({
    port: deps.config.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT,
    log: deps.log,
  });
  const dedupe = deps.dedupe ?? createDedupe({ now: deps.now });
  const states = new Map<string, ChannelState>();
  const blocks = (deps.config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>;

  const set = (name: string, patch: Partial<ChannelState>) =>
    states.set(name, {
      ...(states.get(name) ?? {
        name,
        state: "starting",
        connected: false,
        last_update_at: null,
        degraded: null,
        reason: null,
      }),
      ...patch,
    });

  async function startOne(name: string): Promise<void> {
    const block = withEnvOverlay(name, blocks[name] ?? {}, deps.env);
    const access = channelAccess(name, block as never, { streaming: "block" });
    if (!access.ok) {
      set(name, { state: "refused", reason: access.reason });
      deps.log.error(`${name} channel not started: ${access.reason}`);
      return;
    }
    set(name, { state: "starting" });
    try {
      const adapter = await CHANNELS[name]!({
        config: block,
        resolveSecret: deps.resolveSecret,
        log: deps.log,
        now: deps.now,
        env: deps.env,
        webhooks,
        dedupe,
        ...(deps.cursors
          ? {
              cursor: {
                load: () => deps.cursors!.load(name),
                save: (value: string) => deps.cursors!.save(name, value),
              },
            }
          : {}),
      });
      await adapter.start(deps.gateway.attach(adapter, access.access));
      // What a restart found stored and unanswered goes first, then what arrived while the adapter started.
      deps.gateway.resume(adapter);
      adapters.set(name, adapter);
      set(name, { state: "running" });
      deps.log.info(`${name} channel started`);
    } catch (err) {
      const reason = (err as Error)?.message ?? String(err);
      set(name, { state: "failed", reason });
      deps.log.error(`${name} channel did not start: ${reason}`);
    }
  }

  return {
    async start(): Promise<void> {
      const names = enabledChannels(deps.config);
      await Promise.all(
        names.map((name) =>
          Promise.race([startOne(name), new Promise<void>((resolve) => setTimeout(resolve, CHANNEL_START_WAIT_MS))]),
        ),
      );
      webhooks.start();
    },

    async stop(): Promise<void> {
      // The listener first: nothing new comes in while the rest stops (a platform's delivery is retried later).
      await webhooks.stop();
      deps.gateway.stopAll(new Error("the daemon is stopping"));
      await Promise.allSettled([...adapters.values()].map((a) => a.stop()));
      adapters.clear();
    },

    status(): ChannelState[] {
      for (const [name, adapter] of adapters) {
        const health = adapter.health();
        set(name, {
          connected: health.connected,
          last_update_at: health.lastUpdateAt ? new Date(health.lastUpdateAt).toISOString() : null,
          degraded: health.degraded ?? null,
        });
      }
      return enabledChannels(deps.config).map(
        (name) =>
          states.get(name) ?? {
            name,
            state: "starting",
            connected: false,
            last_update_at: null,
            degraded: null,
            reason: null,
          },
      );
    },

    webhooks: () => webhooks.state(),

    adapter(name: string): ChannelAdapter | undefined {
      return adapters.get(name);
    },
  };
}
