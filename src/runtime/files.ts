import { bun, nodeModule, onBun } from "./host.ts";

type NodeFs = typeof import("node:fs");
type NodeFsPromises = typeof import("node:fs/promises");
const fs = () => nodeModule<NodeFs>("node:fs");
const fsp = () => nodeModule<NodeFsPromises>("node:fs/promises");

/*
 * Whole-file reads and the stat of a descriptor. Bun's file handles are used on Bun because they stay
 * clear of node:fs, whose eager import costs start-up in the compiled binary; Deno gets node:fs.
 */

export function readText(path: string): Promise<string> {
  return onBun ? bun().file(path).text() : fsp().readFile(path, "utf8");
}

export async function readBytes(path: string): Promise<Uint8Array> {
  return onBun ? bun().file(path).bytes() : new Uint8Array(await fsp().readFile(path));
}

/** A file's contents as a stream of chunks, for hashing a large file without holding it. */
export function readStream(path: string): ReadableStream<Uint8Array> {
  if (onBun) return bun().file(path).stream();
  const { Readable } = nodeModule<typeof import("node:stream")>("node:stream");
  return Readable.toWeb(fs().createReadStream(path)) as ReadableStream<Uint8Array>;
}

export async function fileExists(path: string): Promise<boolean> {
  if (onBun) return bun().file(path).exists();
  try {
    return (await fsp().stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The size in bytes of a file, read synchronously; 0 when it does not exist. */
export function fileSizeSync(path: string): number {
  if (onBun) return bun().file(path).size;
  try {
    return fs().statSync(path).size;
  } catch {
    return 0;
  }
}

/** What an open descriptor (0 = stdin) is; throws when it is closed. */
export type DescriptorKind = "character" | "file" | "pipe";

/** What a descriptor's stat says of it. */
export type DescriptorStat = { isCharacterDevice(): boolean; isFile(): boolean };

/** `statting`: the descriptor's stat when it was already asked for (src/main.ts asks for ask's two early). */
export async function descriptorKind(fd: number, statting?: Promise<DescriptorStat>): Promise<DescriptorKind> {
  const stat = await (statting ?? (onBun ? bun().file(fd).stat() : fs().fstatSync(fd)));
  return stat.isCharacterDevice() ? "character" : stat.isFile() ? "file" : "pipe";
}
