// What a channel turn's tools may do in the chat it answers. The channel contract (channels/channel.ts) sends the
// same OutboundFile; it lives here, in a leaf, so that tools never import a channel and channels never import tools.

/** A file for a chat: a picture, a document, a recording. */
export type OutboundFile = {
  kind: "image" | "document" | "audio" | "video" | "voice";
  bytes: Uint8Array;
  filename: string;
  mime: string;
  caption?: string;
};

/** What a channel turn's tools may do in the chat it answers; each action is absent where the platform cannot. */
export type ChannelReply = {
  /** The platform, e.g. "telegram". */
  name: string;
  /** Sends a file into the chat. */
  sendFile?: (file: OutboundFile) => Promise<void>;
  /** The largest file the platform sends, in bytes. */
  maxUploadBytes?: number;
  /** Reacts to the message this turn answers. */
  react?: (emoji: string) => Promise<void>;
  /** The only emoji the platform accepts, when it restricts them (Telegram's fixed list); empty: any. */
  reactions?: readonly string[];
  /** The last picture the user sent in this chat (kept in memory for an hour): generate_image's `inbound:last`. */
  inboundImage?: () => { mime: string; data: Uint8Array } | undefined;
};
