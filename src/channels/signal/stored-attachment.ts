import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { defineError } from "../../error.ts";

/** Signal's own attachment limit, and so the most the channel reads of one. */
export const MAX_SIGNAL_ATTACHMENT_BYTES = 100 * 1024 * 1024;

export const SignalAttachmentUnreadable = defineError<{ id: string }>("signal_attachment_unreadable");
export const SignalAttachmentTooLarge = defineError<{ size: number; maxBytes: number }>("signal_attachment_too_large");

/** signal-cli sanitises what it stores under: letters, digits, `_ . -` (AttachmentStore.sanitizeId). */
const STORED_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * signal-cli's data directory as signal-cli finds it: `--config DIR` when data_dir is set, else
 * $XDG_DATA_HOME/signal-cli, else ~/.local/share/signal-cli (its App.getDefaultDataPath).
 */
export function signalDataDir(
  dataDir: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (dataDir) return dataDir;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "signal-cli");
  return env.HOME ? join(env.HOME, ".local", "share", "signal-cli") : undefined;
}

/**
 * The bytes of an attachment signal-cli received and stored at <data dir>/attachments/<id> (the JSON carries no
 * path). Read by the channel itself, as the daemon's user — not through the sandbox, which keeps the model's tools
 * out of signal-cli's data — and only this one file: the id must be a plain stored name, the file a regular file
 * reached without a symlink, and it is refused past the cap before a byte is read.
 */
export async function readStoredAttachment(
  dataDir: string | undefined,
  id: string,
  maxBytes: number,
): Promise<Uint8Array> {
  if (!dataDir) {
    throw SignalAttachmentUnreadable(
      "cannot find signal-cli's data directory (no HOME): set data_dir in [fermix_channels.signal]",
      { id },
    );
  }
  if (!STORED_NAME.test(id) || /^\.+$/.test(id)) {
    throw SignalAttachmentUnreadable(
      `signal-cli gave an attachment id that is not a stored file name: ${JSON.stringify(id)}`,
      {
        id,
      },
    );
  }
  const cap = Math.min(maxBytes, MAX_SIGNAL_ATTACHMENT_BYTES);
  const path = join(dataDir, "attachments", id);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    throw SignalAttachmentUnreadable(
      `cannot read the attachment signal-cli stored at ${path}: ${(err as Error).message}`,
      {
        id,
      },
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw SignalAttachmentUnreadable(`${path} is not a file`, { id });
    if (stat.size > cap) throw tooLarge(stat.size, cap);
    // One byte past the cap tells a file that grew since the stat from one that fits.
    const buffer = new Uint8Array(Math.min(stat.size, cap) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > cap) throw tooLarge(filled, cap);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function tooLarge(size: number, maxBytes: number) {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return SignalAttachmentTooLarge(`the Signal attachment is ${mb(size)}, over the ${mb(maxBytes)} limit; refusing it`, {
    size,
    maxBytes,
  });
}
