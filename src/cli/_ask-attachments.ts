import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { sniffAttachmentType } from "../media/sniff.ts";
import { type AskAttachment, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_BYTES } from "../protocol/ask-parts.ts";
import { stdinStream } from "../runtime/stdio.ts";
import { UsageError } from "./exit.ts";

const MIB = 1024 * 1024;
const KINDS = "PNG, JPEG, GIF, WebP or PDF";

/**
 * `--attach PATH…` (`-` is stdin) as the request carries them. Every file is checked here, before any request: one
 * that is missing, larger than MAX_ATTACHMENT_BYTES, or of no type the bytes show as a picture or a PDF is a usage
 * error naming its path and the limit, so a script learns of it at once and nothing reaches a provider.
 */
export async function readAttachments(paths: readonly string[]): Promise<AskAttachment[]> {
  if (paths.filter((p) => p === "-").length > 1) throw UsageError("ask: --attach - (stdin) can be given only once");
  const out: AskAttachment[] = [];
  let total = 0;
  for (const path of paths) {
    const bytes = path === "-" ? await readStdinBytes() : readFileChecked(path);
    const mime = sniffAttachmentType(bytes);
    const shown = path === "-" ? "stdin" : path;
    if (!mime) throw UsageError(`ask: --attach ${shown}: not a ${KINDS} file (judged by its bytes, not its name)`);
    total += bytes.byteLength;
    if (total > MAX_ATTACHMENTS_BYTES) {
      throw UsageError(`ask: --attach ${shown}: the attachments together are over ${MAX_ATTACHMENTS_BYTES / MIB} MiB`);
    }
    const name = path === "-" ? `stdin.${mime.split("/")[1]}` : basename(path);
    out.push({ name, mime, data: Buffer.from(bytes).toString("base64") });
  }
  return out;
}

function readFileChecked(path: string): Uint8Array {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw UsageError(`ask: --attach ${path}: no such file (or it cannot be read)`);
  }
  if (!stat.isFile()) throw UsageError(`ask: --attach ${path}: not a file`);
  if (stat.size > MAX_ATTACHMENT_BYTES) throw tooLarge(path, stat.size);
  if (stat.size === 0) throw UsageError(`ask: --attach ${path}: the file is empty`);
  return new Uint8Array(readFileSync(path));
}

/** stdin's bytes, refused as soon as they pass the limit (a pipe has no size to check first). */
async function readStdinBytes(): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stdinStream()) {
    size += chunk.byteLength;
    if (size > MAX_ATTACHMENT_BYTES) throw tooLarge("- (stdin)", size, true);
    chunks.push(chunk);
  }
  if (!size) throw UsageError("ask: --attach -: nothing arrived on stdin");
  return new Uint8Array(Buffer.concat(chunks));
}

function tooLarge(path: string, size: number, atLeast = false): Error {
  const mib = (size / MIB).toFixed(1);
  return UsageError(
    `ask: --attach ${path}: ${atLeast ? "over " : ""}${mib} MiB is larger than the ${MAX_ATTACHMENT_BYTES / MIB} MiB an attachment may be`,
  );
}
