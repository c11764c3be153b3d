import { basename, extname } from "node:path";
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { type AnyTool, defineTool } from "../tool.ts";
import { denied } from "./_paths.ts";

/** Platforms' own caps are lower per kind (Telegram: photo 10 MB, voice 1 MB); the adapter refuses past them. */
const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

const MIME_BY_EXTENSION: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".zip": "application/zip",
  ".mp3": "audio/mpeg",
  ".m4a": "audio/mp4",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
};

export const sendAttachment = defineTool({
  name: "send_attachment",
  description:
    "Send a local file from the sandbox into this chat (image, document, audio, video or voice note), with an optional caption.",
  policy: "workspace_read",
  readOnly: false,
  parameters: lazySchema(() =>
    v.object({
      path: v.pipe(v.string(), v.minLength(1), v.description("A file inside the sandbox roots; not a URL.")),
      kind: v.optional(
        v.pipe(
          v.picklist(["image", "document", "audio", "video", "voice"]),
          v.description("How the chat shows it (default document)."),
        ),
        "document",
      ),
      caption: v.optional(v.string()),
      filename: v.optional(v.pipe(v.string(), v.minLength(1), v.description("The name the chat shows."))),
      mime_type: v.optional(v.pipe(v.string(), v.regex(/^[\w.+-]+\/[\w.+-]+$/, "a MIME type such as image/png"))),
    }),
  ),
  help: "Outbound only: the file goes to the chat this turn answers (inbound pictures already reach you as images). Links are sent as text, not through this tool. Paths outside the sandbox roots are denied; only regular files are sent, up to the platform's upload limit.",
  // Offered only where the platform sends files.
  forChannel: (channel): AnyTool | undefined => (channel.sendFile ? sendAttachment : undefined),
  async execute(args, ctx) {
    if (URL_LIKE.test(args.path)) {
      return { isError: true, content: "URLs are not supported by send_attachment; send the link as text instead." };
    }
    const channel = ctx.channel;
    if (!channel?.sendFile) return { isError: true, content: "send_attachment requires a channel reply context" };
    const limit = channel.maxUploadBytes ?? DEFAULT_MAX_BYTES;
    const read = await ctx.sandbox.readFile(args.path, ctx.caller, limit);
    if (!read.ok) {
      if (read.code === "not_found") return { isError: true, content: `Attachment file not found: ${args.path}` };
      return denied(read, ctx);
    }
    if (read.truncated) {
      return {
        isError: true,
        content: `${read.path} is over the ${channel.name} upload limit of ${Math.round(limit / 1024 / 1024)} MB; send a smaller file.`,
      };
    }
    const filename = args.filename ?? basename(read.path);
    await channel.sendFile({
      kind: args.kind,
      bytes: read.bytes,
      filename,
      mime: args.mime_type ?? MIME_BY_EXTENSION[extname(filename).toLowerCase()] ?? "application/octet-stream",
      ...(args.caption ? { caption: args.caption } : {}),
    });
    return `Sent attachment: ${filename}`;
  },
});
