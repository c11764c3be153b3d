import type { WebSocketManager, WebSocketShard } from "@discordjs/ws";

// Discord's gateway frames are checked here before @discordjs/ws dereferences them. The library parses each frame
// and acts on it inside a promise nobody awaits (`void this.onMessage(…)` in WebSocketShard), so one malformed frame
// was an unhandled rejection that ended the daemon: a READY with `"d": null` threw on `payload.d.session_id`
// (issue 26). A frame that fails the check is dropped before the shard sees it and reported, and the session
// reconnects with back-off (gateway-session.ts).
//
// The check sits in the shard's private `unpackMessage` (where a frame becomes a payload, and where the library
// itself skips a null one), reached through the public `buildStrategy` option: the strategy below is the library's
// own SimpleShardingStrategy with each shard it spawns guarded. Both private names are those of @discordjs/ws 2.x;
// if an update renames them the channel does not connect, and says why, rather than run unguarded.

type WsLibrary = typeof import("@discordjs/ws");
type Unpack = (data: unknown, isBinary: boolean) => Promise<unknown>;

/** A heartbeat interval outside this range is hostile: a tiny one floods the gateway, a huge one overflows timers. */
const HEARTBEAT_MS = { min: 1000, max: 600_000 } as const;

/**
 * What is wrong with a gateway payload that the library would dereference, or undefined when it is safe to hand
 * on. Only the fields @discordjs/ws reads unchecked are checked: a dispatch's sequence, READY's session, Hello's
 * heartbeat interval, op 9's resumable flag. Anything else (unknown ops, other events' `d`) the library passes on
 * untouched and the adapter parses defensively (parse-message.ts).
 */
export function frameProblem(payload: unknown): string | undefined {
  // The library itself skips a null frame (one it could not decode); other non-objects carry no op it acts on.
  if (payload === null || typeof payload !== "object") return undefined;
  const { op, t, s, d } = payload as { op?: unknown; t?: unknown; s?: unknown; d?: unknown };
  switch (op) {
    case 0: {
      if (typeof t !== "string") return `a dispatch without an event name (t: ${show(t)})`;
      if (!Number.isSafeInteger(s)) return `a ${t} dispatch without a sequence number (s: ${show(s)})`;
      if (t !== "READY") return undefined;
      const ready = d as { session_id?: unknown; resume_gateway_url?: unknown } | null | undefined;
      if (ready === null || typeof ready !== "object") return `a READY without its session (d: ${show(d)})`;
      if (typeof ready.session_id !== "string" || !ready.session_id) {
        return `a READY without a session id (session_id: ${show(ready.session_id)})`;
      }
      if (!isGatewayUrl(ready.resume_gateway_url)) {
        return `a READY whose resume_gateway_url is not a ws:// or wss:// URL (${show(ready.resume_gateway_url)})`;
      }
      return undefined;
    }
    case 9:
      return typeof d === "boolean" ? undefined : `an Invalid Session (op 9) whose d is not true or false (${show(d)})`;
    case 10: {
      const interval = (d as { heartbeat_interval?: unknown } | null)?.heartbeat_interval;
      if (typeof interval === "number" && interval >= HEARTBEAT_MS.min && interval <= HEARTBEAT_MS.max)
        return undefined;
      return `a Hello (op 10) whose heartbeat_interval is not ${HEARTBEAT_MS.min}–${HEARTBEAT_MS.max} ms (${show(interval)})`;
    }
    default:
      return undefined;
  }
}

/** Called once per dropped frame with what was wrong, and which shard dropped it. */
export type OnMalformed = (problem: string, shardId: number) => void;

export interface GuardedStrategy {
  /**
   * Ends every shard's connection so that the library does not reconnect on its own. A shard that was waiting for
   * Hello or READY (where a malformed frame leaves it) would, on destroy(), abort that wait and the library's catch
   * would start a second destroy that reconnects after a fixed 500 ms; it would also leave the first destroy
   * waiting forever for a close event the second one unhooked. A "closed" event ends such a wait first, as a drop
   * does; then destroy() only closes the socket.
   */
  retire(reason: string): Promise<void>;
}

/** The `buildStrategy` for a WebSocketManager whose shards' frames pass `frameProblem` first. */
export function guardedStrategy(
  lib: WsLibrary,
  onMalformed: OnMalformed,
): (manager: WebSocketManager) => InstanceType<WsLibrary["SimpleShardingStrategy"]> & GuardedStrategy {
  class GuardedShardingStrategy extends lib.SimpleShardingStrategy implements GuardedStrategy {
    override async spawn(shardIds: number[]): Promise<void> {
      await super.spawn(shardIds);
      for (const [id, shard] of this.spawned()) guardShard(shard, (problem) => onMalformed(problem, id));
    }

    async retire(reason: string): Promise<void> {
      for (const shard of this.spawned().values()) shard.emit(lib.WebSocketShardEvents.Closed, 1000);
      await this.destroy({ code: 1000, reason });
    }

    private spawned(): Map<number, WebSocketShard> {
      const shards = (this as unknown as { shards?: unknown }).shards;
      if (!(shards instanceof Map)) throw new Error(UNGUARDED);
      return shards as Map<number, WebSocketShard>;
    }
  }
  return (manager) => new GuardedShardingStrategy(manager);
}

const UNGUARDED =
  "this @discordjs/ws no longer has the internals fermix checks gateway frames in (a library update?); the Discord channel does not connect unguarded";

const guarded = new WeakSet<WebSocketShard>();

function guardShard(shard: WebSocketShard, onMalformed: (problem: string) => void): void {
  if (guarded.has(shard)) return;
  const inner = shard as unknown as { unpackMessage?: Unpack };
  const unpack = inner.unpackMessage;
  if (typeof unpack !== "function") throw new Error(UNGUARDED);
  inner.unpackMessage = async (data, isBinary) => {
    let payload: unknown;
    try {
      payload = await unpack.call(shard, data, isBinary);
    } catch (err) {
      // A compressed frame that does not inflate or parse throws in the library, outside any handler.
      onMalformed(`a frame that could not be decoded (${(err as Error)?.message ?? String(err)})`);
      return null;
    }
    const problem = frameProblem(payload);
    if (problem === undefined) return payload;
    onMalformed(problem);
    return null;
  };
  guarded.add(shard);
}

function isGatewayUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const { protocol } = new URL(value);
    return protocol === "wss:" || protocol === "ws:";
  } catch {
    return false;
  }
}

/** A value as the log may show it: short, on one line. */
function show(value: unknown): string {
  const text = value === undefined ? "missing" : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
