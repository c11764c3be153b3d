import type { ChannelAdapter } from "../channels/channel.ts";
import { CHANNELS, type ChannelDeps, oneOffDeps } from "../channels/registry.ts";
import type { SecretRef } from "../config/schema.ts";
import { resolveSecret } from "../config/secrets.ts";
import { channelAccess } from "../gateway/channel-access.ts";
import type { ChannelStatus, ChannelsReport } from "../protocol/schemas.ts";
import { type DoctorContext, type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

type Check = Awaited<ReturnType<ChannelAdapter["check"]>>;

/**
 * A row per enabled chat channel: who may talk to it, one live check of its credentials (Telegram: getMe) with
 * the adapter the daemon would load, and — when a daemon runs — the state it is in there (running, connected,
 * degraded). A `streaming = "draft"` the platform cannot show (no message edits) is a warning of its own.
 * Nothing enabled, nothing to say: no row.
 */
export const channelsCheck = defineCheck({
  id: "channels",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("channels", "channels")];
    const blocks = (ctx.config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const enabled = Object.keys(blocks).filter((name) => blocks[name]?.enabled === true);
    if (!enabled.length) return [];
    const live = await daemonChannels(ctx);
    const rows = await Promise.all(enabled.map((name) => channelRows(ctx, name, blocks[name]!, live)));
    return rows.flat();
  },
});

async function channelRows(
  ctx: DoctorContext,
  name: string,
  block: Record<string, unknown>,
  live: ChannelStatus[] | undefined,
): Promise<DoctorRow[]> {
  const row = (status: DoctorRow["status"], detail: string, fix?: string): DoctorRow => ({
    id: `channels.${name}`,
    title: "channels",
    status,
    detail: `${name}: ${detail}`,
    ...(fix ? { fix } : {}),
  });
  const factory = (ctx.channels ?? CHANNELS)[name];
  if (!factory) {
    return [
      row(
        "warn",
        "enabled, but this fermix has no such channel",
        `remove [fermix_channels.${name}] or set enabled = false`,
      ),
    ];
  }
  const access = channelAccess(name, block as never, { streaming: "block" });
  if (!access.ok) return [row("fail", `will not start: ${access.reason}`, `fermix setup --channel ${name}`)];

  let adapter: ChannelAdapter;
  try {
    adapter = await factory(channelDeps(ctx, block));
  } catch (err) {
    return [row("fail", (err as Error)?.message ?? String(err), `fermix setup --channel ${name}`)];
  }
  const check = await within(
    adapter.check().catch(
      (err: unknown): Check => ({
        ok: false,
        detail: (err as Error)?.message ?? String(err),
        fix: "run fermix doctor again",
      }),
    ),
    ctx.probeTimeoutMs,
    (): Check => ({
      ok: false,
      detail: `no answer within ${ctx.probeTimeoutMs / 1000} s`,
      fix: "check the network, then run fermix doctor again",
    }),
  );
  const state = live?.find((s) => s.name === name);
  // No daemon is the daemon row's warning, not this channel's.
  const daemon = live === undefined ? { status: "ok" as const, text: "the daemon is not running" } : daemonPart(state);
  const rows: DoctorRow[] = [];
  if (!check.ok) rows.push(row("fail", `${check.detail}; ${daemon.text}`, check.fix));
  else rows.push(row(daemon.status, `${check.detail}; ${daemon.text}`, daemon.fix));
  if (access.access.streaming === "draft" && !adapter.capabilities.editMessages) {
    rows.push(
      row(
        "warn",
        'streaming = "draft" needs a channel that can edit a sent message; replies stream as "block" instead',
        `set streaming = "block" (or "off") in [fermix_channels.${name}]`,
      ),
    );
  }
  return rows;
}

/** What the running daemon says about the channel; undefined state: it has not loaded it (config changed). */
function daemonPart(state: ChannelStatus | undefined): { status: DoctorRow["status"]; text: string; fix?: string } {
  if (!state) {
    return {
      status: "warn",
      text: "the running daemon does not run it (config.toml changed since it started)",
      fix: "fermix restart",
    };
  }
  if (state.state === "refused" || state.state === "failed") {
    return {
      status: "fail",
      text: `the daemon could not start it: ${state.reason ?? state.state}`,
      fix: "fix that, then fermix restart",
    };
  }
  if (state.degraded) return { status: "warn", text: `degraded in the daemon: ${state.degraded}` };
  if (state.state !== "running") return { status: "warn", text: `${state.state} in the daemon` };
  if (!state.connected) return { status: "warn", text: "running in the daemon, but not connected" };
  const last = state.last_update_at ? `, last update ${state.last_update_at}` : "";
  return { status: "ok", text: `running in the daemon, connected${last}` };
}

async function daemonChannels(ctx: DoctorContext): Promise<ChannelStatus[] | undefined> {
  if (!ctx.daemonChannels) return undefined;
  try {
    const report = await within<ChannelsReport | undefined>(ctx.daemonChannels(), ctx.probeTimeoutMs, () => undefined);
    return report?.channels;
  } catch {
    // Not running (the daemon row says so), or too old to know about channels.
    return undefined;
  }
}

/** The adapter as the daemon builds it; a secret it resolves is redacted from every row. */
function channelDeps(ctx: DoctorContext, block: Record<string, unknown>): ChannelDeps {
  const quiet = () => {};
  return oneOffDeps({
    config: block,
    resolveSecret: (ref, slot) => {
      const value = resolveSecret(ref as SecretRef, slot, {
        env: ctx.env,
        secretsDir: ctx.paths.secrets,
        profile: ctx.config?.fermix_core?.profile,
        platform: ctx.platform,
        run: ctx.run,
      });
      if (value) ctx.secrets.push(value);
      return value;
    },
    log: { info: quiet, warn: quiet, error: quiet },
    now: ctx.now,
  });
}

/** `promise`, or what `late()` says once `ms` have passed without an answer. */
function within<T>(promise: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
