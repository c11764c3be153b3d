import type { OutboundFile } from "../../capabilities/channel-reply.ts";
import { defineError } from "../../error.ts";
import type { ChatTarget, SentMessage } from "../channel.ts";
import type { DiscordRest } from "./discord-rest.ts";
import { MAX_DISCORD_FILE_BYTES } from "./parse-message.ts";
import { codepoints, MAX_CODEPOINTS, unitsFor } from "./reply-chunks.ts";
import { allowedMentions, snowflake } from "./send-reply.ts";

export const DiscordUploadTooLarge = defineError<{ size: number; cap: number }>("discord_upload_too_large");

/**
 * One file as a message: multipart with `payload_json` (the caption as content, no pings) and `files[0]`,
 * refused before upload past 10 MB. A voice note goes as an audio file: Discord's own voice messages need a
 * waveform and duration that only its clients record.
 */
export async function sendDiscordFile(rest: DiscordRest, target: ChatTarget, file: OutboundFile): Promise<SentMessage> {
  if (file.bytes.byteLength > MAX_DISCORD_FILE_BYTES) {
    const size = Math.round((file.bytes.byteLength / 1024 / 1024) * 10) / 10;
    throw DiscordUploadTooLarge(`${file.filename} is ${size} MB; Discord bots can send files of up to 10 MB.`, {
      size: file.bytes.byteLength,
      cap: MAX_DISCORD_FILE_BYTES,
    });
  }
  let caption = file.caption?.trim() ?? "";
  if (codepoints(caption) > MAX_CODEPOINTS) caption = `${caption.slice(0, unitsFor(caption, MAX_CODEPOINTS - 1))}…`;
  const message = await rest.request<{ id: string }>(
    "sending a file",
    "POST",
    `/channels/${snowflake(target.chatId)}/messages`,
    {
      body: {
        ...(caption ? { content: caption } : {}),
        allowed_mentions: allowedMentions(false),
        attachments: [{ id: 0, filename: file.filename }],
      },
      files: [{ name: file.filename, data: file.bytes, contentType: file.mime }],
    },
  );
  return { id: String(message.id) };
}
