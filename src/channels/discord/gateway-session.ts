import type { WebSocketManager } from "@discordjs/ws";
import { createBackoff } from "../../net/backoff.ts";
import type { ChannelHealth } from "../channel.ts";
import type { DiscordRest } from "./discord-rest.ts";
import { type GuardedStrategy, guardedStrategy } from "./frame-guard.ts";
import type { GatewaySession } from "./gateway-session-contract.ts";

/** GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT: messages in servers and DMs, with their text. */
export const INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);
/**
 * Waits before a new connection after a failed start (GET /gateway/bot refused or unreachable) or a malformed
 * frame: 1 s, 2 s, 4 s … up to a minute, reset by a session (READY or RESUMED). A gateway that keeps sending
 * garbage is not hammered, and every new connection spends one of the bot's daily session starts.
 */
export const RECONNECT_BACKOFF = { initialMs: 1000, maxMs: 60_000 } as const;
/** Consecutive closes without a session after which the channel reports itself degraded. */
export const DEGRADED_AFTER = 5;
/** How long a retiring connection may take to close before it is left behind (stop must not wait on a peer). */
const RETIRE_WAIT_MS = 2000;

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
  /** The connection now: a manager and its guarded strategy. A retired one's events are ignored. */
  type Attempt = { manager: WebSocketManager; strategy: GuardedStrategy };
  let open: (() => Attempt) | undefined;
  let current: Attempt | undefined;
  let stopped = false;
  let connected = false;
  let lastUpdateAt: number | undefined;
  let closes = 0;
  let lastClose: number | undefined;
  let fatal: string | undefined;
  /** The last malformed frame's problem, until a session starts again. */
  let malformed: string | undefined;
  const backoff = createBackoff(RECONNECT_BACKOFF);
  const wakers = new Set<() => void>();

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });

  const sessionStarted = (how: string) => {
    if (!connected) deps.log.info(`discord: gateway session ${how}`);
    connected = true;
    closes = 0;
    malformed = undefined;
    backoff.reset();
    lastUpdateAt = deps.now();
  };

  /** Ends a connection without the library reconnecting it; bounded, so neither stop nor a reconnect hangs on it. */
  async function retire(attempt: Attempt, reason: string): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, RETIRE_WAIT_MS);
    });
    await Promise.race([attempt.strategy.retire(reason).catch(() => {}), waited]);
    clearTimeout(timer);
  }

  /** The first connect (READY); GET /gateway/bot failing is retried with back-off until it works or stop. */
  async function connect(attempt: Attempt): Promise<void> {
    while (!stopped && current === attempt) {
      try {
        await attempt.manager.connect();
        return;
      } catch (err) {
        if (stopped || current !== attempt) return;
        closes += 1;
        const wait = backoff.next();
        deps.log.warn(
          `discord: could not open the gateway (${deps.rest.redact(String((err as Error)?.message ?? err))}); trying again in ${seconds(wait)}`,
        );
        await pause(wait);
      }
    }
  }

  /**
   * A frame the guard dropped (frame-guard.ts): this connection cannot be trusted to be in a state the library
   * understands, so it is retired and a new one opened after the back-off; until a session starts, the channel
   * says what Discord sent.
   */
  async function reconnectAfter(attempt: Attempt, problem: string): Promise<void> {
    if (stopped || current !== attempt) return;
    current = undefined;
    connected = false;
    closes += 1;
    const wait = backoff.next();
    malformed = `Discord's gateway sent ${problem}; the frame was dropped and fermix reconnects with back-off (next try in ${seconds(wait)})`;
    deps.log.warn(`discord: ${malformed}`);
    await retire(attempt, "a malformed gateway frame");
    await pause(wait);
    if (!stopped && current === undefined && open) void connect(open());
  }

  return {
    async start(): Promise<void> {
      const [lib, rest] = await Promise.all([import("@discordjs/ws"), deps.rest.client()]);
      const { WebSocketManager, WebSocketShardEvents } = lib;
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
      open = () => {
        let strategy: GuardedStrategy | undefined;
        const manager = new Manager({
          token: deps.token,
          intents: INTENTS,
          rest,
          shardCount: 1,
          buildStrategy: (m) => {
            const built = guardedStrategy(lib, (problem) => void reconnectAfter(attempt, problem))(m);
            strategy = built;
            return built;
          },
        });
        const attempt: Attempt = { manager, strategy: strategy! };
        current = attempt;
        listen(attempt, WebSocketShardEvents);
        return attempt;
      };
      void connect(open());
    },

    async stop(): Promise<void> {
      stopped = true;
      for (const wake of [...wakers]) wake();
      const attempt = current;
      current = undefined;
      if (attempt) await retire(attempt, "fermix is stopping");
    },

    health(): ChannelHealth {
      const degraded =
        fatal ??
        malformed ??
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

  function listen(attempt: Attempt, events: typeof import("@discordjs/ws").WebSocketShardEvents): void {
    const { manager } = attempt;
    const live = () => !stopped && current === attempt;
    manager.on(events.Dispatch, (payload) => {
      if (!live()) return;
      lastUpdateAt = deps.now();
      try {
        deps.onDispatch(payload.t, payload.d);
      } catch (err) {
        deps.log.warn(`discord: a ${payload.t} event could not be handled: ${(err as Error)?.message ?? err}`);
      }
    });
    manager.on(events.Ready, () => live() && sessionStarted("ready"));
    manager.on(events.Resumed, () => live() && sessionStarted("resumed"));
    // An "error" event nobody listens to is thrown (it would end the daemon); the close code before it says why.
    manager.on(events.Error, (err) => {
      if (live() && !fatal) deps.log.warn(`discord: gateway error: ${deps.rest.redact(err.message)}`);
    });
    manager.on(events.SocketError, () => {
      // A failed connect or a dropped socket: its close follows, and is what gets counted.
    });
    manager.on(events.Closed, (code) => {
      if (!live()) return;
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
  }
}

/** 1 s, 2.5 s: a wait as the log says it. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
