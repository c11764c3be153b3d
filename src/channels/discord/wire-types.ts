import * as v from "valibot";

/*
 * The parts of Discord's gateway payloads the adapter reads (API v10), checked at the edge. Loose objects: Discord
 * adds fields often, and a field the adapter does not read must never make it drop a message.
 */

const Snowflake = v.pipe(v.string(), v.regex(/^\d{1,20}$/));

export const User = v.looseObject({
  id: Snowflake,
  username: v.optional(v.string()),
  global_name: v.optional(v.nullable(v.string())),
  bot: v.optional(v.boolean()),
});
export type User = v.InferOutput<typeof User>;

export const Attachment = v.looseObject({
  id: Snowflake,
  filename: v.string(),
  size: v.optional(v.number()),
  url: v.string(),
  content_type: v.optional(v.string()),
});
export type Attachment = v.InferOutput<typeof Attachment>;

/** MESSAGE_CREATE's `d`. */
export const Message = v.looseObject({
  id: Snowflake,
  channel_id: Snowflake,
  guild_id: v.optional(Snowflake),
  author: User,
  content: v.optional(v.string(), ""),
  type: v.optional(v.number(), 0),
  flags: v.optional(v.number(), 0),
  webhook_id: v.optional(v.string()),
  mentions: v.optional(v.array(v.looseObject({ id: v.string() })), []),
  attachments: v.optional(v.array(Attachment), []),
});
export type Message = v.InferOutput<typeof Message>;

/** INTERACTION_CREATE's `d` (the adapter answers component taps only). */
export const Interaction = v.looseObject({
  id: Snowflake,
  application_id: Snowflake,
  type: v.number(),
  // Goes into the callback's URL path: only the characters Discord's tokens are made of.
  token: v.pipe(v.string(), v.regex(/^[\w.-]{1,1000}$/)),
  guild_id: v.optional(Snowflake),
  channel_id: v.optional(Snowflake),
  /** In a guild the tapper is member.user; in a DM, user. */
  member: v.optional(v.looseObject({ user: v.optional(User) })),
  user: v.optional(User),
  data: v.optional(v.looseObject({ custom_id: v.optional(v.string()), component_type: v.optional(v.number()) })),
  message: v.optional(v.looseObject({ id: Snowflake, channel_id: v.optional(Snowflake) })),
});
export type Interaction = v.InferOutput<typeof Interaction>;

/** Message types a person writes: DEFAULT and REPLY (joins, pins, boosts and the rest are system messages). */
export const USER_MESSAGE_TYPES = new Set([0, 19]);
/** The IS_VOICE_MESSAGE message flag: the attachment is a recorded voice note (audio/ogg, Opus). */
export const VOICE_MESSAGE_FLAG = 1 << 13;
/** INTERACTION_CREATE type 3: a tap on a message component (our Approve/Deny buttons). */
export const MESSAGE_COMPONENT = 3;
