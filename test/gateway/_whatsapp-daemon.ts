import { expect } from "bun:test";
import { createServer } from "node:net";
import { fermixPaths } from "../../src/config/paths.ts";
import type { WebhooksState } from "../../src/protocol/schemas.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { type FakeWhatsApp, startFakeWhatsApp, type WaMessage, webhookPayload } from "../fake/whatsapp-graph-api.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * A compiled daemon with [fermix_channels.whatsapp] on the fake Graph API and its webhook port on a free loopback
 * port, for the WhatsApp daemon tests: the fake signs and delivers webhooks to that port and serves the sends.
 */

export const KEY = "sk-test-whatsapp-0123456789abcdef";
export const STT_KEY = "sk-test-wa-transcribe-9876543210";
export const OWNER = "15550001111";
export const GUEST = "15550002222";
export const STRANGER = "15550003333";

/** A free loopback port, found by letting the kernel pick one and closing it again. */
export function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

export type WhatsAppWorld = Awaited<ReturnType<typeof startWhatsAppWorld>>;

/**
 * Everything a test needs, started; `defer` gets each teardown. Resolves once the daemon has checked the number
 * with Graph and its webhook listener reports listening (or failed, when the test holds the port).
 */
export async function startWhatsAppWorld(
  defer: (undo: () => unknown) => void,
  options: {
    config?: string[];
    port?: number;
    expectWebhooks?: "listening" | "failed";
    /** The secrets and the phone number id from WHATSAPP_* variables instead of config.toml. */
    fromEnv?: boolean;
  } = {},
) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  const wa = await startFakeWhatsApp();
  defer(() => wa.close());
  const stt = await startFakeTranscription({ flavor: "openai", apiKey: STT_KEY, transcript: "buy oat milk" });
  defer(() => stt.close());
  const port = options.port ?? (await freePort());
  h.writeConfig(
    [
      "[fermix_core.transcription]",
      'backend = "openai"',
      `base_url = "${stt.baseUrl}"`,
      `openai_api_key = "${STT_KEY}"`,
      "",
      "[fermix_web]",
      `webhook_port = ${port}`,
      "",
      "[fermix_channels.whatsapp]",
      "enabled = true",
      ...(options.fromEnv
        ? []
        : [
            `access_token = "${wa.token}"`,
            `app_secret = "${wa.appSecret}"`,
            `verify_token = "${wa.verifyToken}"`,
            `phone_number_id = "${wa.phoneNumberId}"`,
          ]),
      `owner_user_id = "${OWNER}"`,
      `allowed_sender_ids = ["${GUEST}"]`,
      `api_base_url = "${wa.baseUrl}"`,
      'streaming = "off"',
      "album_debounce_ms = 300",
      ...(options.config ?? []),
      "",
    ].join("\n"),
  );
  const env: Record<string, string> = {
    FERMIX_HOME: h.home,
    HOME: h.userHome,
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: llm.baseUrl,
    ...(options.fromEnv
      ? {
          WHATSAPP_ACCESS_TOKEN: wa.token,
          WHATSAPP_APP_SECRET: wa.appSecret,
          WHATSAPP_VERIFY_TOKEN: wa.verifyToken,
          WHATSAPP_PHONE_NUMBER_ID: wa.phoneNumberId,
        }
      : {}),
  };
  const checked = wa.waitForCall((c) => c.method === "GET" && c.path === wa.phoneNumberId);
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    // Whatever happened, no WhatsApp secret reaches the daemon's log.
    for (const secret of [wa.token, wa.appSecret, wa.verifyToken]) expect(daemon.stderr()).not.toContain(secret);
  });
  await checked;
  const webhooks = await waitForWebhooks(h.home, options.expectWebhooks ?? "listening");
  const url = `http://127.0.0.1:${port}/webhook/whatsapp`;
  /** Meta delivering these messages, signed; resolves with the daemon's answer. */
  const deliver = (messages: WaMessage[], opts?: Parameters<FakeWhatsApp["deliver"]>[2]) =>
    wa.deliver(url, webhookPayload(wa.phoneNumberId, messages), opts);
  return { h, llm, wa, stt, env, daemon, port, url, webhooks, deliver };
}

/**
 * Asks the daemon (its socket) until the webhook listener has left "idle" — the channels start beside the daemon,
 * after its readiness line; the deadline is a safety net.
 */
export async function waitForWebhooks(home: string, want: "listening" | "failed"): Promise<WebhooksState> {
  const socket = fermixPaths(home).socket;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await fetch("http://fermix/v1/channels", { unix: socket } as RequestInit);
    const state = ((await answer.json()) as { webhooks?: WebhooksState }).webhooks;
    if (state && state.state !== "idle") {
      if (state.state !== want) throw new Error(`webhooks ${state.state}: ${JSON.stringify(state)}`);
      return state;
    }
    if (Date.now() > deadline) throw new Error("the webhook listener never left idle");
  }
}
