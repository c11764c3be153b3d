import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStoredAttachment, signalDataDir } from "../../../src/channels/signal/stored-attachment.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

const defer = cleanupAfterEach();

function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), "signal-data-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "attachments"));
  return dir;
}

describe("signalDataDir", () => {
  test("data_dir, else $XDG_DATA_HOME/signal-cli, else ~/.local/share/signal-cli — as signal-cli looks", () => {
    expect(signalDataDir("/srv/signal", { HOME: "/home/a", XDG_DATA_HOME: "/x" })).toBe("/srv/signal");
    expect(signalDataDir(undefined, { HOME: "/home/a", XDG_DATA_HOME: "/x" })).toBe("/x/signal-cli");
    expect(signalDataDir(undefined, { HOME: "/home/a" })).toBe("/home/a/.local/share/signal-cli");
    expect(signalDataDir(undefined, {})).toBeUndefined();
  });
});

describe("readStoredAttachment", () => {
  test("reads <data dir>/attachments/<id>", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "attachments", "Ab1_-x.jpg"), new Uint8Array([1, 2, 3]));
    expect(await readStoredAttachment(dir, "Ab1_-x.jpg", 10)).toEqual(new Uint8Array([1, 2, 3]));
  });

  test("refuses a file over the cap before reading it", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "attachments", "big.bin"), new Uint8Array(11));
    await expect(readStoredAttachment(dir, "big.bin", 10)).rejects.toMatchObject({
      code: "signal_attachment_too_large",
      data: { size: 11, maxBytes: 10 },
    });
  });

  test("refuses ids that are not stored names, symlinks, directories and missing files", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "secret"), "no");
    symlinkSync(join(dir, "secret"), join(dir, "attachments", "link.jpg"));
    mkdirSync(join(dir, "attachments", "sub"));
    for (const id of ["../secret", "..", ".", "a/b", "", "link.jpg", "sub", "missing.jpg"]) {
      await expect(readStoredAttachment(dir, id, 10)).rejects.toMatchObject({ code: "signal_attachment_unreadable" });
    }
    await expect(readStoredAttachment(undefined, "a.jpg", 10)).rejects.toThrow("set data_dir");
  });
});
