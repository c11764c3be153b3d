import type { OutboundFile } from "../../capabilities/channel-reply.ts";
import { defineError } from "../../error.ts";
import type { ChatTarget, SentMessage } from "../channel.ts";
import { SlackApiError } from "./api-errors.ts";
import { renderFirst } from "./mrkdwn.ts";
import { rateLimited, whereParams } from "./send-reply.ts";
import type { SlackApi } from "./web-api.ts";

const MB = 1024 * 1024;
/** What fermix sends to Slack per file (channels facts §6: media 100 MB; Slack itself takes more). */
export const SLACK_MAX_UPLOAD_BYTES = 100 * MB;
/** A file's comment is a message's first lines, not a reply: kept short. */
const CAPTION_CHARS = 4000;

export const SlackUploadTooLarge = defineError<{ size: number; cap: number }>("slack_upload_too_large");

/**
 * One file through Slack's external upload flow: files.getUploadURLExternal (name and length) → the bytes POSTed to
 * the upload_url it returns → files.completeUploadExternal, which shares it in the chat (the mention's thread when
 * there is one) with the caption as its comment.
 */
export async function sendSlackFile(api: SlackApi, target: ChatTarget, file: OutboundFile): Promise<SentMessage> {
  if (file.bytes.byteLength > SLACK_MAX_UPLOAD_BYTES) {
    const size = Math.round((file.bytes.byteLength / MB) * 10) / 10;
    throw SlackUploadTooLarge(`${file.filename} is ${size} MB; fermix sends files of up to 100 MB to Slack.`, {
      size: file.bytes.byteLength,
      cap: SLACK_MAX_UPLOAD_BYTES,
    });
  }
  const slot = await rateLimited(() =>
    api.call<{ upload_url?: string; file_id?: string }>("files.getUploadURLExternal", {
      filename: file.filename,
      length: file.bytes.byteLength,
    }),
  );
  if (!slot.upload_url || !slot.file_id) {
    throw SlackApiError("Slack files.getUploadURLExternal gave no upload_url", {
      method: "files.getUploadURLExternal",
      error: "no_upload_url",
      kind: "remote_rejected",
    });
  }
  await api.upload(slot.upload_url, file.bytes);
  const { channel, thread_ts } = whereParams(target);
  const caption = file.caption?.trim() ? renderFirst(file.caption, CAPTION_CHARS) : undefined;
  await rateLimited(() =>
    api.call("files.completeUploadExternal", {
      files: [{ id: slot.file_id, title: file.filename }],
      channel_id: channel,
      ...(thread_ts ? { thread_ts } : {}),
      ...(caption ? { initial_comment: caption } : {}),
    }),
  );
  return { id: slot.file_id };
}
