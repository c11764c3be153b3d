import type { Caller } from "../capabilities/caller.ts";
import type { StreamingMode } from "./reply-sink.ts";

/** Who may talk to a channel and how, from its [fermix_channels.<name>] table. */
export type ChannelAccess = {
  owner?: string;
  /** Everyone who may talk to it, the owner included. */
  ingress: ReadonlySet<string>;
  /** Commands a guest may use besides the everyone-commands (never the sandbox ones). */
  commandAllowlist: readonly string[];
  streaming: StreamingMode;
  /** Telegram's `@botname` suffix on commands in groups. */
  botName?: string;
  albumDebounceMs: number;
  /** A message sent longer ago than this (it waited while fermix was not running) gets a short reply, no turn. */
  backlogMaxAgeMs: number;
};

/** [fermix_channels.<name>] backlog_max_age_seconds's default: 15 minutes. */
export const DEFAULT_BACKLOG_MAX_AGE_S = 900;

type ChannelBlock = {
  owner_user_id?: string;
  allowed_user_ids?: string[];
  allowed_sender_ids?: string[];
  command_allowlist?: string[];
  streaming?: StreamingMode;
  bot_name?: string;
  album_debounce_ms?: number;
  backlog_max_age_seconds?: number;
};

/**
 * An absent allow-list means [owner]. A remote channel nobody may talk to (no owner and no allow-list, or an
 * explicitly empty list) refuses to start: a bot that answers no one is a misconfiguration, said out loud.
 */
export function channelAccess(
  name: string,
  block: ChannelBlock,
  defaults: { streaming: StreamingMode },
): { ok: true; access: ChannelAccess } | { ok: false; reason: string } {
  const listKey = "allowed_sender_ids" in block ? "allowed_sender_ids" : "allowed_user_ids";
  const listed = block[listKey];
  const owner = block.owner_user_id;
  if (listed !== undefined && listed.length === 0 && !owner) {
    return {
      ok: false,
      reason: `[fermix_channels.${name}] ${listKey} is an empty list and there is no owner_user_id: nobody could talk to it; set owner_user_id to your own ${name} user id`,
    };
  }
  const ingress = new Set<string>([...(owner ? [owner] : []), ...(listed ?? [])]);
  if (ingress.size === 0) {
    return {
      ok: false,
      reason: `[fermix_channels.${name}] has no owner_user_id and no ${listKey}: set owner_user_id to your own ${name} user id (fermix setup --channel ${name})`,
    };
  }
  return {
    ok: true,
    access: {
      owner,
      ingress,
      commandAllowlist: block.command_allowlist ?? [],
      streaming: block.streaming ?? defaults.streaming,
      botName: block.bot_name,
      albumDebounceMs: block.album_debounce_ms ?? 3000,
      backlogMaxAgeMs: (block.backlog_max_age_seconds ?? DEFAULT_BACKLOG_MAX_AGE_S) * 1000,
    },
  };
}

/** The owner is the operator; anyone else on the ingress list a guest; everyone else no one (undefined). */
export function callerFor(access: ChannelAccess, senderId: string): Caller | undefined {
  const id = senderId.trim();
  if (access.owner !== undefined && id === access.owner) return { trust: "operator", local: false, attended: true };
  if (access.ingress.has(id)) return { trust: "guest", local: false, attended: true };
  return undefined;
}
