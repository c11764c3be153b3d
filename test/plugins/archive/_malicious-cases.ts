import { gzipSync } from "node:zlib";
import type { ArchiveLimits } from "../../../src/plugins/archive/safe-extract.ts";
import { END_OF_ARCHIVE, packTar, paxRecords, pluginEntries, rawEntry, type TarEntry, tgz } from "./_tarball.ts";

/** Malicious plugin archives, shared by the extractor's table and the store's "nothing changed" table. */
export type Case = {
  name: string;
  /** Builds the archive; `root` is the test's temp dir, for absolute-path cases that aim at it. */
  build: (root: string) => Promise<Uint8Array> | Uint8Array;
  error: RegExp;
  limits?: Partial<ArchiveLimits>;
};

const ok = pluginEntries();
const withEntries = (...extra: TarEntry[]) => tgz([...ok, ...extra]);
const raw = (...parts: Buffer[]) => gzipSync(Buffer.concat([...parts, END_OF_ARCHIVE]));
const MiB = 1024 * 1024;

export const cases: Case[] = [
  { name: "parent traversal", build: () => withEntries({ name: "../evil", body: "x" }), error: /'\.\.' segments/ },
  {
    name: "traversal inside an allowed directory",
    build: () => withEntries({ name: "skills/../../evil", body: "x" }),
    error: /'\.\.' segments/,
  },
  {
    name: "absolute path",
    build: (root) => withEntries({ name: `${root}/abs-evil`, body: "x" }),
    error: /absolute paths/,
  },
  { name: "Windows drive path", build: () => withEntries({ name: "C:\\evil", body: "x" }), error: /backslash/ },
  { name: "drive letter with slash", build: () => withEntries({ name: "C:/evil", body: "x" }), error: /drive-letter/ },
  {
    name: "backslash traversal",
    build: () => withEntries({ name: "skills\\..\\..\\evil", body: "x" }),
    error: /backslash/,
  },
  {
    name: "symlink escaping the tree",
    build: () => withEntries({ name: "skills/link", type: "symlink", linkname: "../../outside" }),
    error: /symlink entries are not allowed/,
  },
  {
    name: "hardlink to a host file",
    build: () => withEntries({ name: "skills/passwd", type: "link", linkname: "/etc/passwd" }),
    error: /link entries are not allowed/,
  },
  {
    name: "symlink then a write through it",
    build: () =>
      tgz([
        ok[0]!,
        { name: "assets", type: "symlink", linkname: "../outside" },
        { name: "assets/pwned.txt", body: "x" },
      ]),
    error: /symlink entries are not allowed/,
  },
  {
    name: "case-insensitive collision",
    build: () => withEntries({ name: "skills/A.md", body: "a" }, { name: "skills/a.md", body: "b" }),
    error: /collides with "skills\/A\.md"/,
  },
  {
    name: "case collision on a parent directory",
    build: () => withEntries({ name: "skills/Foo/a.md", body: "a" }, { name: "skills/foo/b.md", body: "b" }),
    error: /"skills\/foo" collides/,
  },
  {
    name: "NFC/NFD collision",
    build: () =>
      withEntries({ name: "skills/caf\u00e9.md", body: "nfc" }, { name: "skills/cafe\u0301.md", body: "nfd" }),
    error: /Unicode normalisation/,
  },
  {
    name: "duplicate entry",
    build: () => withEntries({ name: "plugin.json", body: '{"name":"other"}' }),
    error: /duplicate entry/,
  },
  {
    name: "file and directory under one name",
    build: () => withEntries({ name: "assets/a", body: "x" }, { name: "assets/a/b", body: "y" }),
    error: /both a file and a directory/,
  },
  {
    name: "character device",
    build: () => withEntries({ name: "assets/null", type: "character-device", devmajor: 1, devminor: 3 }),
    error: /character-device entries are not allowed/,
  },
  {
    name: "block device",
    build: () => withEntries({ name: "assets/sda", type: "block-device", devmajor: 8, devminor: 0 }),
    error: /block-device entries are not allowed/,
  },
  {
    name: "fifo",
    build: () => withEntries({ name: "assets/pipe", type: "fifo" }),
    error: /fifo entries are not allowed/,
  },
  {
    name: "contiguous file",
    build: () => raw(rawEntry({ name: "assets/c", typeflag: "7", body: "x" })),
    error: /contiguous-file entries are not allowed/,
  },
  {
    name: "unknown type flag",
    build: () => raw(rawEntry({ name: "assets/v", typeflag: "V" })),
    error: /unknown entry type entries are not allowed/,
  },
  {
    name: "PAX header overriding the path to ../x",
    build: () =>
      raw(
        rawEntry({ name: "PaxHeader/ok", typeflag: "x", body: paxRecords({ path: "../x" }) }),
        rawEntry({ name: "skills/ok.md", typeflag: "0", body: "innocent name, evil pax path" }),
      ),
    error: /archive entry "\.\.\/x": '\.\.' segments/,
  },
  {
    name: "GNU long name overriding the path to an absolute one",
    build: () =>
      raw(
        rawEntry({ name: "././@LongLink", typeflag: "L", body: "/etc/cron.d/evil\0" }),
        rawEntry({ name: "skills/ok.md", typeflag: "0", body: "x" }),
      ),
    error: /"\/etc\/cron\.d\/evil": absolute paths/,
  },
  {
    name: "file name with a trailing slash",
    build: () =>
      raw(rawEntry({ name: "plugin.json", typeflag: "0", body: "{}" }), rawEntry({ name: "skills/x/", typeflag: "0" })),
    error: /cannot end with '\/'/,
  },
  {
    name: "file with an empty name",
    build: () => withEntries({ name: "./", type: "file", body: "x" }),
    error: /empty name/,
  },
  {
    name: "file over the per-file cap",
    build: () => withEntries({ name: "assets/big.bin", body: new Uint8Array(4096) }),
    limits: { maxFileBytes: 1024 },
    error: /"assets\/big\.bin": file is larger than 1024 bytes/,
  },
  {
    name: "archive over the total cap",
    build: () =>
      withEntries(
        { name: "assets/a.bin", body: new Uint8Array(600) },
        { name: "assets/b.bin", body: new Uint8Array(600) },
      ),
    limits: { maxTotalBytes: 1024 },
    error: /more than 1024 bytes in total/,
  },
  {
    name: "gzip bomb",
    build: () => withEntries({ name: "assets/zeros.bin", body: new Uint8Array(8 * MiB) }),
    limits: { expansionFloorBytes: 1 * MiB, maxExpansionRatio: 100 },
    error: /possible gzip bomb/,
  },
  {
    name: "too many entries",
    build: () => withEntries(...Array.from({ length: 10 }, (_, i) => ({ name: `assets/f${i}`, body: "x" }))),
    limits: { maxEntries: 8 },
    error: /more than 8 entries/,
  },
  {
    name: "truncated inside an entry",
    build: async () => {
      const tar = await packTar([...ok, { name: "assets/data.bin", body: new Uint8Array(5000).fill(7) }]);
      return gzipSync(tar.subarray(0, tar.byteLength - 1024 - 3000));
    },
    error: /truncated/,
  },
  {
    name: "truncated gzip stream",
    build: async () => {
      const gz = await tgz([...ok, { name: "assets/data.bin", body: crypto.getRandomValues(new Uint8Array(8000)) }]);
      return gz.subarray(0, gz.byteLength - 2000);
    },
    error: /truncated/,
  },
  {
    name: "missing end-of-archive marker",
    build: async () => {
      const tar = await packTar(ok);
      return gzipSync(tar.subarray(0, tar.byteLength - 1024));
    },
    error: /no end-of-archive marker/,
  },
  { name: "not gzip at all", build: () => new TextEncoder().encode("<html>404</html>"), error: /not a valid gzipped/ },
  {
    name: "gzip but not tar",
    build: () => gzipSync(Buffer.alloc(2048, 0x41)),
    error: /not a valid gzipped tarball/,
  },
  {
    name: "disallowed top-level entry",
    build: () => withEntries({ name: "node_modules/evil/index.js", body: "x" }),
    error: /"node_modules" is not an allowed top-level entry/,
  },
  {
    name: "hidden top-level entry",
    build: () => withEntries({ name: ".git/config", body: "x" }),
    error: /"\.git" is not an allowed top-level entry/,
  },
  {
    name: "runtime file without a runtime",
    build: () => withEntries({ name: "package.json", body: "{}" }),
    error: /runtime files need a plugin that declares a runtime/,
  },
  {
    name: "allowed name of the wrong kind",
    build: () => tgz([ok[0]!, { name: "skills", body: "not a directory" }]),
    error: /"skills" must be a directory/,
  },
];

/** Every path under `root`, relative, so a stray write anywhere in the sandbox shows up. */
