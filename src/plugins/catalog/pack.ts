import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { defineError } from "../../error.ts";

export const PluginPackInvalid = defineError("plugin_pack_invalid");

// Fixed metadata so the same tree always packs to the same bytes, whoever builds it and whenever.
const FIXED_MTIME = new Date("2020-01-01T00:00:00Z");
const OWNER = { uid: 0, gid: 0, uname: "", gname: "" };

type Entry = { name: string; kind: "file" | "directory"; executable: boolean; path: string };

/**
 * Packs a plugin directory into a deterministic .tgz: sorted entries named relative to the plugin root
 * (`plugin.json`, `bin/run`), mtime 2020-01-01, owner 0:0, modes 0644/0755 with only the executable bit
 * carried over. Symlinks and special files are refused: an installer must never be handed a link.
 */
export async function packPluginDir(dir: string): Promise<Uint8Array> {
  const entries: Entry[] = [];
  await walk(dir, "", entries);

  const tar = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of tar) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    const header = { name: entry.name, mtime: FIXED_MTIME, ...OWNER };
    if (entry.kind === "directory") {
      tar.entry({ ...header, type: "directory", mode: 0o755 });
    } else {
      const body = await readFile(entry.path);
      tar.entry({ ...header, type: "file", mode: entry.executable ? 0o755 : 0o644, size: body.length }, body);
    }
  }
  tar.finalize();
  await done;
  // node's gzip writes a zero mtime and a fixed OS byte in its header, so the output stays reproducible.
  return new Uint8Array(gzipSync(Buffer.concat(chunks), { level: 9 }));
}

async function walk(root: string, rel: string, out: Entry[]): Promise<void> {
  const names = (await readdir(join(root, rel))).sort();
  for (const name of names) {
    const relName = rel ? `${rel}/${name}` : name;
    const path = join(root, relName);
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) throw PluginPackInvalid(`${relName} is a symbolic link; plugins may not contain links`);
    if (stat.isDirectory()) {
      out.push({ name: relName, kind: "directory", executable: true, path });
      await walk(root, relName, out);
    } else if (stat.isFile()) {
      out.push({ name: relName, kind: "file", executable: (stat.mode & 0o111) !== 0, path });
    } else {
      throw PluginPackInvalid(`${relName} is not a regular file or directory`);
    }
  }
}
