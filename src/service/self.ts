import { basename, join } from "node:path";
import { sourceRoot } from "../embedded/assets.ts";
import { FermixError } from "../error.ts";

/**
 * How to run this fermix again: the compiled binary itself, or — from a checkout — the Bun runtime with
 * the entry script (`bun src/main.ts`).
 */
export function selfCommand(): { binary: string; entry?: string } {
  const root = sourceRoot();
  return root ? { binary: process.execPath, entry: join(root, "src", "main.ts") } : { binary: process.execPath };
}

/**
 * The binary a service unit may point at. A unit that runs `bun` on a checkout would break the moment
 * the checkout moves or bun upgrades, so running from source is refused.
 */
export function serviceBinary(): string {
  const self = selfCommand();
  if (self.entry || /^bun(\.exe)?$/.test(basename(self.binary))) {
    throw new FermixError(
      "from_source",
      "a service must run a built fermix binary, not `bun src/main.ts`: build one (`bun run build`, then dist/fermix service install) or install a release",
    );
  }
  return self.binary;
}
