import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import type { ChannelAdapter, ChannelDeps } from "../../src/channels/channel.ts";
import { channelsCheck } from "../../src/doctor/channels-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import type { ChannelsReport } from "../../src/protocol/schemas.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";
import { doctorDeps } from "./_deps.ts";

/* Doctor's webhook-port row: only when an enabled channel takes webhooks; the daemon's state, or the port's. */

const defer = cleanupAfterEach();

/** A registry whose `hooky` channel registers a webhook route when it is built, and `polly` none. */
const registry = {
  hooky: async (deps: ChannelDeps): Promise<ChannelAdapter> => {
    deps.webhooks.register({ method: "POST", path: "/webhook/hooky", handle: async () => new Response() });
    deps.webhooks.register({ method: "GET", path: "/webhook/hooky", handle: async () => new Response() });
    return createTestChannel({ name: "hooky" }).adapter;
  },
  polly: async (): Promise<ChannelAdapter> => createTestChannel({ name: "polly" }).adapter,
};

async function rows(channel: string, port: number, daemon?: ChannelsReport) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(
    `[fermix_web]\nwebhook_port = ${port}\n\n[fermix_channels.${channel}]\nenabled = true\nowner_user_id = "1"\n`,
  );
  const over = { channels: registry, ...(daemon ? { daemonChannels: async () => daemon } : {}) };
  return (await runDoctor(doctorDeps(h, over), [channelsCheck])).rows.filter((r) => r.id === "channels.webhooks");
}

const running = {
  name: "hooky",
  state: "running",
  connected: true,
  last_update_at: null,
  degraded: null,
  reason: null,
};

describe("doctor: the webhook port", () => {
  test("no webhook channel enabled: no row", async () => {
    expect(await rows("polly", await freePort())).toEqual([]);
  });

  test("no daemon: the port is free, or taken by another program (fail, with the fix)", async () => {
    const port = await freePort();
    expect(await rows("hooky", port)).toEqual([
      {
        id: "channels.webhooks",
        title: "channels",
        status: "ok",
        detail: `webhooks: port ${port} on 127.0.0.1 is free; the daemon listens there (POST+GET /webhook/hooky) when it runs`,
      },
    ]);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", () => resolve()));
    defer(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    expect(await rows("hooky", port)).toEqual([
      {
        id: "channels.webhooks",
        title: "channels",
        status: "fail",
        detail: `webhooks: port ${port} on 127.0.0.1 is in use by another program, so the daemon could not listen there`,
        fix: "set [fermix_web] webhook_port to a free port in config.toml, then fermix restart",
      },
    ]);
  });

  test("a daemon that does not listen although a webhook channel is enabled: restart", async () => {
    const [row] = await rows("hooky", await freePort(), { channels: [running], webhooks: { state: "idle" } });
    expect(row).toMatchObject({ status: "warn", fix: "fermix restart" });
    expect(row!.detail).toStartWith("webhooks: the running daemon does not listen for webhooks");
  });
});
