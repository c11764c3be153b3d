import * as v from "valibot";

/*
 * The part of the Bot API's Update the adapter reads, checked at the edge. Objects are open (Telegram adds fields
 * with every Bot API version); an update that does not fit is skipped, never half-read.
 */

export const User = v.object({
  id: v.number(),
  is_bot: v.optional(v.boolean()),
  first_name: v.optional(v.string()),
  username: v.optional(v.string()),
});

export const Chat = v.object({ id: v.number(), type: v.string() });

const FileFields = {
  file_id: v.string(),
  file_unique_id: v.optional(v.string()),
  file_size: v.optional(v.number()),
};

export const PhotoSize = v.object({ ...FileFields, width: v.optional(v.number()), height: v.optional(v.number()) });
export type PhotoSize = v.InferOutput<typeof PhotoSize>;

export const MediaFile = v.object({
  ...FileFields,
  mime_type: v.optional(v.string()),
  file_name: v.optional(v.string()),
});
export type MediaFile = v.InferOutput<typeof MediaFile>;

export const Message = v.object({
  message_id: v.number(),
  message_thread_id: v.optional(v.number()),
  is_topic_message: v.optional(v.boolean()),
  from: v.optional(User),
  chat: Chat,
  text: v.optional(v.string()),
  caption: v.optional(v.string()),
  photo: v.optional(v.array(PhotoSize)),
  voice: v.optional(MediaFile),
  audio: v.optional(MediaFile),
  video: v.optional(MediaFile),
  video_note: v.optional(MediaFile),
  document: v.optional(MediaFile),
  media_group_id: v.optional(v.string()),
  /** Unix seconds, as Telegram's clock says it was sent: a message older than the backlog window gets no turn. */
  date: v.optional(v.number()),
});
export type Message = v.InferOutput<typeof Message>;

export const CallbackQuery = v.object({
  id: v.string(),
  from: User,
  /** Absent for a button under an inline-mode message; "inaccessible" messages still carry chat and id. */
  message: v.optional(
    v.object({
      message_id: v.number(),
      chat: Chat,
      message_thread_id: v.optional(v.number()),
      is_topic_message: v.optional(v.boolean()),
    }),
  ),
  data: v.optional(v.string()),
});
export type CallbackQuery = v.InferOutput<typeof CallbackQuery>;

export const Update = v.object({
  update_id: v.number(),
  message: v.optional(Message),
  edited_message: v.optional(Message),
  callback_query: v.optional(CallbackQuery),
});
export type Update = v.InferOutput<typeof Update>;

/** getFile's answer: `file_path` is valid for about an hour, so it is asked for right before each download. */
export const File = v.object({
  file_id: v.string(),
  file_size: v.optional(v.number()),
  file_path: v.optional(v.string()),
});

export const BotUser = v.object({
  id: v.number(),
  username: v.optional(v.string()),
  first_name: v.optional(v.string()),
});

/** What sendMessage and the send* methods answer with (the sent message; only its id is read). */
export const SentMessage = v.object({ message_id: v.number() });
