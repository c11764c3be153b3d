import { describe, expect, test } from "bun:test";
import type { ChannelAdapter, ChannelDeps } from "../../src/channels/channel.ts";
import { channelsCheck } from "../../src/doctor/channels-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import type { ChannelStatus } from "../../src/protocol/schemas.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel, type TestChannelOptions } from "../fixture/test-channel.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const TOKEN = "123456:AAtest-token-value-that-must-never-print";

function home(toml: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(toml);
  return h;
}

const TELEGRAM = `[fermix_channels.telegram]\nenabled = true\nowner_user_id = 42\nbot_token = "${TOKEN}"\n`;

/** The registry with `telegram` replaced by a test channel; `seen` gets the deps the adapter was built with. */
function registry(opts: TestChannelOptions = {}, seen: ChannelDeps[] = []) {
  return {
    telegram: async (deps: ChannelDeps): Promise<ChannelAdapter> => {
      seen.push(deps);
      deps.resolveSecret(deps.config.bot_token, "TELEGRAM_BOT_TOKEN");
      return createTestChannel({ name: "telegram", ...opts }).adapter;
    },
  };
}

const running = (over: Partial<ChannelStatus> = {}): ChannelStatus => ({
  name: "telegram",
  state: "running",
  connected: true,
  last_update_at: "2026-12-01T12:00:00.000Z",
  degraded: null,
  reason: null,
  ...over,
});

async function rows(toml: string, over: Parameters<typeof doctorDeps>[1] = {}) {
  const h = home(toml);
  return (await runDoctor(doctorDeps(h, over), [channelsCheck])).rows;
}

describe("doctor: channels", () => {
  test("no channel enabled: no row", async () => {
    expect(await rows("")).toEqual([]);
    expect(await rows("[fermix_channels.telegram]\nenabled = false\n")).toEqual([]);
  });

  test("an enabled channel whose credentials check out, with no daemon", async () => {
    const seen: ChannelDeps[] = [];
    const found = await rows(TELEGRAM, {
      channels: registry({ check: async () => ({ ok: true, detail: "bot @fermix_test_bot (id 123456)" }) }, seen),
    });
    expect(found).toEqual([
      {
        id: "channels.telegram",
        title: "channels",
        status: "ok",
        detail: "telegram: bot @fermix_test_bot (id 123456); the daemon is not running",
      },
    ]);
    expect(seen[0]!.config.owner_user_id).toBe("42");
  });

  test("a rejected token fails with the check's sentence and fix, and the token never prints", async () => {
    const found = await rows(TELEGRAM, {
      channels: registry({
        check: async () => ({
          ok: false,
          detail: `invalid bot token: Telegram answered 404 Not Found for ${TOKEN}`,
          fix: "paste the BotFather token without a bot prefix (fermix setup --channel telegram)",
        }),
      }),
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      status: "fail",
      fix: "paste the BotFather token without a bot prefix (fermix setup --channel telegram)",
    });
    expect(found[0]!.detail).toStartWith("telegram: invalid bot token: Telegram answered 404 Not Found");
    expect(JSON.stringify(found)).not.toContain(TOKEN);
  });

  test("a check that never answers is bounded", async () => {
    const found = await rows(TELEGRAM, {
      probeTimeoutMs: 50,
      channels: registry({ check: () => new Promise(() => {}) }),
    });
    expect(found[0]).toMatchObject({
      status: "fail",
      detail: "telegram: no answer within 0.05 s; the daemon is not running",
    });
  });

  test("a channel nobody may talk to will not start", async () => {
    const found = await rows('[fermix_channels.telegram]\nenabled = true\nbot_token = "x:y"\n', {
      channels: registry(),
    });
    expect(found[0]).toMatchObject({ status: "fail", fix: "fermix setup --channel telegram" });
    expect(found[0]!.detail).toContain("has no owner_user_id and no allowed_user_ids");
  });

  test("an adapter that cannot be built (no token) fails with its reason", async () => {
    const found = await rows("[fermix_channels.telegram]\nenabled = true\nowner_user_id = 1\n", {
      channels: {
        telegram: async () => {
          throw new Error("the Telegram channel is enabled but has no bot token");
        },
      },
    });
    expect(found[0]).toMatchObject({
      status: "fail",
      detail: "telegram: the Telegram channel is enabled but has no bot token",
    });
  });

  test("with a daemon: its state joins the row — running, degraded, failed, or not loaded", async () => {
    const channels = registry({ check: async () => ({ ok: true, detail: "bot @b (id 1)" }) });
    const report = (state: ChannelStatus[]) => async () => ({ channels: state });

    const ok = await rows(TELEGRAM, { channels, daemonChannels: report([running()]) });
    expect(ok[0]).toMatchObject({
      status: "ok",
      detail: "telegram: bot @b (id 1); running in the daemon, connected, last update 2026-12-01T12:00:00.000Z",
    });

    const degraded = await rows(TELEGRAM, {
      channels,
      daemonChannels: report([running({ connected: false, degraded: "5 getUpdates failures in a row: 502" })]),
    });
    expect(degraded[0]).toMatchObject({
      status: "warn",
      detail: "telegram: bot @b (id 1); degraded in the daemon: 5 getUpdates failures in a row: 502",
    });

    const failed = await rows(TELEGRAM, {
      channels,
      daemonChannels: report([
        running({ state: "failed", connected: false, reason: "Telegram rejected the bot token" }),
      ]),
    });
    expect(failed[0]).toMatchObject({ status: "fail", fix: "fix that, then fermix restart" });

    const missing = await rows(TELEGRAM, { channels, daemonChannels: report([]) });
    expect(missing[0]).toMatchObject({ status: "warn", fix: "fermix restart" });
  });

  test('streaming = "draft" on a channel that cannot edit messages warns', async () => {
    const found = await rows(`${TELEGRAM}streaming = "draft"\n`, { channels: registry({ noEdits: true }) });
    expect(found.map((r) => r.status)).toEqual(["ok", "warn"]);
    expect(found[1]).toMatchObject({
      detail:
        'telegram: streaming = "draft" needs a channel that can edit a sent message; replies stream as "block" instead',
      fix: 'set streaming = "block" (or "off") in [fermix_channels.telegram]',
    });
    // The same setting on a channel that edits is fine.
    expect((await rows(`${TELEGRAM}streaming = "draft"\n`, { channels: registry() })).map((r) => r.status)).toEqual([
      "ok",
    ]);
  });

  test("an enabled block this fermix has no channel for warns", async () => {
    const found = await rows("[fermix_channels.carrier_pigeon]\nenabled = true\n", { channels: registry() });
    expect(found).toEqual([
      {
        id: "channels.carrier_pigeon",
        title: "channels",
        status: "warn",
        detail: "carrier_pigeon: enabled, but this fermix has no such channel",
        fix: "remove [fermix_channels.carrier_pigeon] or set enabled = false",
      },
    ]);
  });
});
