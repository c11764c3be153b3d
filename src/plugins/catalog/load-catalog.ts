import { existsSync } from "node:fs";
import { join } from "node:path";
import { embeddedDir, sourceRoot } from "../../embedded/assets.ts";
import type { GuardedFetch } from "../../net/types.ts";
import { embeddedTrust } from "../../trust/embedded-keys.ts";
import type { TrustMaterial } from "../../trust/trust-material.ts";
import type { Catalog } from "./catalog-contract.ts";
import { readCatalog } from "./read-catalog.ts";

/**
 * Loads the signed plugin catalog this build embeds (or the one at `root`), verified against the embedded keys
 * unless `trust` is given.
 */
export async function loadCatalog(
  opts: { root?: string; trust?: TrustMaterial; net?: GuardedFetch } = {},
): Promise<Catalog> {
  const root = opts.root ?? embeddedDir("catalog");
  // From a source checkout with no build yet (`npm install && npm test`), build the catalog the way build.ts does.
  const checkout = sourceRoot();
  if (!opts.root && checkout && !existsSync(join(root, "index.json"))) {
    const { runCatalogStep } = await import("./build-step.ts");
    await runCatalogStep({ root: checkout, env: {} });
  }
  return readCatalog({ root, trust: opts.trust ?? embeddedTrust(), net: opts.net });
}
