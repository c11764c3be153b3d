import type { ChannelAdapter, ChannelDeps } from "../channels/channel.ts";
import { withEnvOverlay } from "../channels/env-overlay.ts";
import { CHANNELS, oneOffDeps } from "../channels/registry.ts";
import { resolveSecret } from "../config/secrets.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import { DEFAULT_WEBHOOK_PORT } from "../config/sections/web.ts";
import { channelAccess } from "../gateway/channel-access.ts";
import type { WebhookRoute } from "../gateway/webhooks/webhook-listener-contract.ts";
import type { ChannelStatus, ChannelsReport } from "../protocol/schemas.ts";
import { serveHttp } from "../runtime/http.ts";
import { type DoctorContext, type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

type Check = Awaited<ReturnType<ChannelAdapter["check"]>>;

/**
 * A row per enabled chat channel: who may talk to it, one live check of its credentials (Telegram: getMe) with
 * the adapter the daemon would load, and — when a daemon runs — the state it is in there (running, connected,
 * degraded). A `streaming = "draft"` the platform cannot show (no message edits) is a warning of its own. When an
 * enabled channel takes webhooks, one more row says whether the webhook port listens (or, with no daemon, is free).
 * Nothing enabled, nothing to say: no row.
 */
export const channelsCheck = defineCheck({
  id: "channels",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("channels", "channels")];
    const blocks = (ctx.config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const enabled = Object.keys(blocks).filter((name) => blocks[name]?.enabled === true);
    if (!enabled.length) return [];
    const report = await daemonReport(ctx);
    const routes: WebhookRoute[] = [];
    const rows = await Promise.all(
      enabled.map((name) =>
        channelRows(ctx, name, withEnvOverlay(name, blocks[name]!, ctx.env), report?.channels, routes),
      ),
    );
    if (routes.length) rows.push([await webhooksRow(ctx, routes, report)]);
    return rows.flat();
  },
});

async function channelRows(
  ctx: DoctorContext,
  name: string,
  block: Record<string, unknown>,
  live: ChannelStatus[] | undefined,
  routes: WebhookRoute[],
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
    adapter = await factory(channelDeps(ctx, block, routes));
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

async function daemonReport(ctx: DoctorContext): Promise<ChannelsReport | undefined> {
  if (!ctx.daemonChannels) return undefined;
  try {
    return await within<ChannelsReport | undefined>(ctx.daemonChannels(), ctx.probeTimeoutMs, () => undefined);
  } catch {
    // Not running (the daemon row says so), or too old to know about channels.
    return undefined;
  }
}

/**
 * The adapter as the daemon builds it; a secret it resolves is redacted from every row. The webhook routes it
 * registers are collected (never served): they say a webhook channel is enabled.
 */
function channelDeps(ctx: DoctorContext, block: Record<string, unknown>, routes: WebhookRoute[]): ChannelDeps {
  const quiet = () => {};
  return oneOffDeps({
    config: block,
    env: ctx.env,
    webhooks: { register: (route) => void routes.push(route) },
    resolveSecret: (ref, slot) =>
      resolveSecret(ref as SecretRef, slot, {
        env: ctx.env,
        secretsDir: ctx.paths.secrets,
        profile: ctx.config?.fermix_core?.profile,
        platform: ctx.platform,
        run: ctx.run,
      }),
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

/**
 * The webhook port, when an enabled channel takes webhooks. With a daemon: its listener's state (a port in use is
 * a failed row with the fix, never a failed daemon). Without one: whether the port is free for it.
 */
async function webhooksRow(
  ctx: DoctorContext,
  routes: WebhookRoute[],
  report: ChannelsReport | undefined,
): Promise<DoctorRow> {
  const port = ctx.config?.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT;
  const paths = [...new Set(routes.map((r) => r.path))]
    .map((path) => {
      const methods = routes.filter((r) => r.path === path).map((r) => r.method);
      return `${methods.join("+")} ${path}`;
    })
    .join(", ");
  const row = (status: DoctorRow["status"], detail: string, fix?: string): DoctorRow => ({
    id: "channels.webhooks",
    title: "channels",
    status,
    detail: `webhooks: ${detail}`,
    ...(fix ? { fix } : {}),
  });
  const freePort = "set [fermix_web] webhook_port to a free port in config.toml, then fermix restart";
  const state = report?.webhooks;
  if (state?.state === "listening") {
    return row("ok", `listening on 127.0.0.1:${state.port} (${paths}); expose this port, and only it, to the platform`);
  }
  if (state?.state === "failed") return row("fail", `not listening: ${state.reason ?? `port ${state.port}`}`, freePort);
  if (state) {
    return row(
      "warn",
      "the running daemon does not listen for webhooks (config.toml changed since it started, or the channel did not start)",
      "fermix restart",
    );
  }
  if (await portFree(port)) {
    return row("ok", `port ${port} on 127.0.0.1 is free; the daemon listens there (${paths}) when it runs`);
  }
  return row(
    "fail",
    `port ${port} on 127.0.0.1 is in use by another program, so the daemon could not listen there`,
    freePort,
  );
}

/** Whether a loopback port can be listened on now (opened and closed at once). */
export async function portFree(port: number): Promise<boolean> {
  let server: ReturnType<typeof serveHttp>;
  try {
    server = serveHttp({ hostname: "127.0.0.1", port }, () => new Response(null, { status: 404 }));
  } catch {
    return false;
  }
  await server.stop(true);
  return true;
}
