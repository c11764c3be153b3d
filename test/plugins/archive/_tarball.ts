import { gzipSync } from "node:zlib";
import * as tar from "tar-stream";

export type TarEntry = Partial<tar.Header> & { name: string; body?: string | Uint8Array };

/** Builds an uncompressed tar with tar-stream's packer. */
export async function packTar(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      // A fixed mtime keeps artifacts, and so their sha256, identical across runs and processes.
      const head = { mode: 0o644, mtime: new Date(0), ...header };
      if (body === undefined) pack.entry(head, done);
      else pack.entry({ ...head, size: Buffer.byteLength(body) }, body, done);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export async function tgz(entries: TarEntry[]): Promise<Uint8Array> {
  return gzipSync(await packTar(entries));
}

/** A minimal valid plugin tree. */
export function pluginEntries(name = "demo", version = "1.0.0", extra: TarEntry[] = []): TarEntry[] {
  return [
    { name: "plugin.json", body: JSON.stringify({ name, version, plugin_api: 1, min_core_version: "0.1.0" }) },
    { name: "skills/", type: "directory" },
    { name: "skills/hello/SKILL.md", body: `# hello from ${name} ${version}\n` },
    { name: "bin/run", body: "#!/bin/sh\necho hi\n", mode: 0o4777 },
    ...extra,
  ];
}

/**
 * One raw 512-byte ustar header, for what tar-stream's packer will not write (a PAX path that differs from the
 * ustar name, unknown type flags, file names with a trailing slash).
 */
export function rawHeader(opts: { name: string; typeflag: string; size?: number; linkname?: string }): Buffer {
  const buf = Buffer.alloc(512);
  buf.write(opts.name, 0, 100, "utf8");
  buf.write("0000644\0", 100);
  buf.write("0000000\0", 108);
  buf.write("0000000\0", 116);
  buf.write(`${(opts.size ?? 0).toString(8).padStart(11, "0")}\0`, 124);
  buf.write("00000000000\0", 136);
  buf.write(opts.typeflag, 156);
  if (opts.linkname) buf.write(opts.linkname, 157, 100, "utf8");
  buf.write("ustar\0", 257);
  buf.write("00", 263);
  buf.fill(" ", 148, 156);
  let sum = 0;
  for (const b of buf) sum += b;
  buf.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return buf;
}

/** Header + body padded to 512, for hand-built archives. */
export function rawEntry(opts: { name: string; typeflag: string; body?: string; linkname?: string }): Buffer {
  const body = Buffer.from(opts.body ?? "");
  const pad = Buffer.alloc((512 - (body.byteLength % 512)) % 512);
  return Buffer.concat([rawHeader({ ...opts, size: body.byteLength }), body, pad]);
}

export function paxRecords(records: Record<string, string>): string {
  let out = "";
  for (const [key, value] of Object.entries(records)) {
    const line = ` ${key}=${value}\n`;
    let len = Buffer.byteLength(line) + 1;
    while (String(len).length + Buffer.byteLength(line) !== len) len = String(len).length + Buffer.byteLength(line);
    out += `${len}${line}`;
  }
  return out;
}

export const END_OF_ARCHIVE = Buffer.alloc(1024);
