import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const SCRIPT = resolve(import.meta.dir, "fake-vendor.ts");

/**
 * Puts fake `codex` and/or `claude` executables in `dir` (shell wrappers running fake-vendor.ts with this bun),
 * for a PATH that holds nothing else of theirs. Returns the directory.
 */
export function installFakeVendors(dir: string, vendors: Array<"codex" | "claude"> = ["codex", "claude"]): string {
  mkdirSync(dir, { recursive: true });
  for (const vendor of vendors) {
    const file = join(dir, vendor);
    writeFileSync(file, `#!/bin/sh\nexec '${process.execPath}' '${SCRIPT}' ${vendor} "$@"\n`);
    chmodSync(file, 0o755);
  }
  return dir;
}

/** The fake's log: one JSON line per start ({vendor, args, pid, cwd, mode}) and per helper ({helper}). */
export type FakeLogLine = {
  vendor?: string;
  args?: string[];
  pid?: number;
  cwd?: string;
  mode?: string;
  helper?: number;
};
