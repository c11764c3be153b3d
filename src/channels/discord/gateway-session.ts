import type { WebSocketManager } from "@discordjs/ws";
import type { ChannelHealth } from "../channel.ts";
import type { DiscordRest } from "./discord-rest.ts";
import type { GatewaySession } from "./gateway-session-contract.ts";

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: messages in servers and DMs, with their text. */
export const INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);
/** A failed start (GET /gateway/bot refused or unreachable) is tried again after this. */
export const RETRY_START_MS = 5000;
/** Consecutive closes without a session after which the channel reports itself degraded. */
export const DEGRADED_AFTER = 5;

/** Close codes that end the session for good, with what the owner should do. */
const FATAL_CLOSES: Record<number, string> = {
  4004: "Discord refused the bot token on the gateway (close code 4004): copy the bot's current token from the Developer Portal and run `fermix setup --channel discord`",
  4010: "Discord refused the shard (close code 4010)",
  4011: "Discord says this bot needs sharding (close code 4011), which fermix does not do",
  4012: "Discord refused the gateway API version (close code 4012)",
  4013: "Discord refused the gateway intents (close code 4013)",
  4014: "Discord refused the Message Content intent (close code 4014): in the Developer Portal, open your app → Bot → Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT, then `fermix restart`",
};

export type GatewaySessionDeps = {
  token: string;
  rest: DiscordRest;
  /** A fixed gateway URL (a test endpoint); otherwise GET /gateway/bot says where to connect. */
  gatewayUrl?: string;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  now: () => number;
  /** Every dispatch (op 0), in order: MESSAGE_CREATE, INTERACTION_CREATE, … */
  onDispatch(type: string, data: unknown): void;
};

/**
 * The gateway v10 connection, on @discordjs/ws: Hello → heartbeats at Discord's interval (and on its op 1),
 * Identify with INTENTS, or Resume with the session and last sequence after a drop, an op 7 or a resumable op 9,
 * replaying what was missed; a session Discord will not resume is identified afresh. The library loads only at
 * start. In Bun it connects with the runtime's own WebSocket client (@discordjs/util picks the global WebSocket
 * under Bun and Deno), so the `ws` package is never used. Nothing here answers a message: dispatches go to
 * `onDispatch`; this keeps the connection and its health.
 */
export function createGatewaySession(deps: GatewaySessionDeps): GatewaySession {
  let manager: WebSocketManager | undefined;
  let stopped = false;
  let connected = false;
  let lastUpdateAt: number | undefined;
  let closes = 0;
  let lastClose: number | undefined;
  let fatal: string | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const sessionStarted = (how: string) => {
    if (!connected) deps.log.info(`discord: gateway session ${how}`);
    connected = true;
    closes = 0;
    lastUpdateAt = deps.now();
  };

  /** The first connect (READY); GET /gateway/bot failing is retried until it works or stop. */
  async function connect(current: WebSocketManager): Promise<void> {
    while (!stopped) {
      try {
        await current.connect();
        return;
      } catch (err) {
        if (stopped) return;
        closes += 1;
        deps.log.warn(
          `discord: could not open the gateway (${deps.rest.redact(String((err as Error)?.message ?? err))}); trying again in ${RETRY_START_MS / 1000} s`,
        );
        await pause(RETRY_START_MS);
      }
    }
  }

  return {
    async start(): Promise<void> {
      const [{ WebSocketManager, WebSocketShardEvents }, rest] = await Promise.all([
        import("@discordjs/ws"),
        deps.rest.client(),
      ]);
      const fixedUrl = deps.gatewayUrl?.replace(/\/+$/, "");
      const Manager = fixedUrl
        ? class extends WebSocketManager {
            // The configured endpoint stands in for GET /gateway/bot's answer.
            override async fetchGatewayInformation() {
              return {
                url: fixedUrl,
                shards: 1,
                session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
              };
            }
          }
        : WebSocketManager;
      const current = new Manager({ token: deps.token, intents: INTENTS, rest, shardCount: 1 });
      manager = current;
      current.on(WebSocketShardEvents.Dispatch, (payload) => {
        lastUpdateAt = deps.now();
        try {
          deps.onDispatch(payload.t, payload.d);
        } catch (err) {
          deps.log.warn(`discord: a ${payload.t} event could not be handled: ${(err as Error)?.message ?? err}`);
        }
      });
      current.on(WebSocketShardEvents.Ready, () => sessionStarted("ready"));
      current.on(WebSocketShardEvents.Resumed, () => sessionStarted("resumed"));
      // An "error" event nobody listens to is thrown (it would end the daemon); the close code before it says why.
      current.on(WebSocketShardEvents.Error, (err) => {
        if (!fatal) deps.log.warn(`discord: gateway error: ${deps.rest.redact(err.message)}`);
      });
      current.on(WebSocketShardEvents.SocketError, () => {
        // A failed connect or a dropped socket: its close follows, and is what gets counted.
      });
      current.on(WebSocketShardEvents.Closed, (code) => {
        if (stopped) return;
        connected = false;
        closes += 1;
        lastClose = code;
        const final = FATAL_CLOSES[code];
        if (final) {
          fatal = final;
          deps.log.error(`discord: ${final}`);
        } else if (closes === 1 || closes === DEGRADED_AFTER) {
          deps.log.warn(`discord: the gateway connection closed (code ${code}); reconnecting`);
        }
      });
      void connect(current);
    },

    async stop(): Promise<void> {
      stopped = true;
      wake?.();
      try {
        await manager?.destroy({ code: 1000, reason: "fermix is stopping" });
      } catch {
        // Already closed: nothing left to stop.
      }
    },

    health(): ChannelHealth {
      const degraded =
        fatal ??
        (closes >= DEGRADED_AFTER
          ? `the Discord gateway connection failed ${closes} times in a row (last close code ${lastClose ?? "none"}); fermix keeps reconnecting`
          : undefined);
      return {
        connected: connected && fatal === undefined,
        ...(lastUpdateAt !== undefined ? { lastUpdateAt } : {}),
        ...(degraded ? { degraded } : {}),
      };
    },
  };
}
