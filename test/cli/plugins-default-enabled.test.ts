import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installFromCatalog } from "../../src/cli/_plugins-store.ts";
import { loadConfig } from "../../src/config/load.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { buildCatalog } from "../../src/plugins/catalog/build-catalog.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { createPluginHost } from "../../src/plugins/plugin-host.ts";
import { disablePlugin, enabledPlugins } from "../../src/plugins/settings/plugin-config.ts";
import { createPluginStore } from "../../src/plugins/store/plugin-store.ts";
import { VERSION } from "../../src/version.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { writePlugin } from "../fixture/plugin-folder.ts";

const defer = cleanupAfterEach();
const ROOT = join(import.meta.dir, "..", "..");

/**
 * A catalog like the embedded one — signed with the development key the source checkout trusts, so install runs its
 * real sha256 and signature checks — holding `chimes` (default_enabled) and `bells` (no such key).
 */
async function world() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig("# the owner's notes stay\n");
  const sourceDir = join(h.userHome, "catalog-src");
  writePlugin(sourceDir, "chimes", { default_enabled: true });
  writePlugin(sourceDir, "bells");
  writePlugin(sourceDir, "gongs", { default_enabled: false });
  const outDir = join(h.userHome, "catalog");
  const privateKeyPem = readFileSync(join(ROOT, "catalog/keys/dev-signing-key.pem"), "utf8");
  await buildCatalog({ sourceDir, outDir, privateKeyPem });
  const paths = fermixPaths(h.home);
  const secrets = createSecretStore({ secretsDir: paths.secrets });
  const host = createPluginHost({
    paths,
    coreVersion: VERSION,
    catalog: () => loadCatalog({ root: outDir }),
    store: createPluginStore({ paths: paths.plugins }),
    secrets,
  });
  // As each `fermix plugins install` builds it: config.toml read afresh.
  const install = async (name: string) =>
    installFromCatalog(name, undefined, {
      env: {},
      paths,
      config: await loadConfig(paths.config),
      secrets,
      host,
    });
  const enabled = async () => enabledPlugins(await loadConfig(paths.config));
  return { paths, install, enabled };
}

describe("plugins install honours the manifest's default_enabled", () => {
  test("default_enabled = true: the install enables it, as plugins enable does", async () => {
    const w = await world();
    const out = await w.install("chimes");
    expect(out.record).toMatchObject({ name: "chimes", version: "0.1.0" });
    expect(out.enabled).toBe(true);
    expect(out.notes[0]).toContain("enabled chimes");
    expect(await w.enabled()).toEqual(["chimes"]);
    expect(readFileSync(w.paths.config, "utf8")).toContain("# the owner's notes stay");
  });

  test("absent or false: installed and left disabled", async () => {
    const w = await world();
    expect(await w.install("bells")).toMatchObject({ enabled: false, notes: [] });
    expect(await w.install("gongs")).toMatchObject({ enabled: false, notes: [] });
    expect(await w.enabled()).toEqual([]);
  });

  test("a reinstall keeps the owner's disable", async () => {
    const w = await world();
    await w.install("chimes");
    disablePlugin(w.paths.config, "chimes");
    expect(await w.install("chimes")).toMatchObject({ enabled: false, notes: [] });
    expect(await w.enabled()).toEqual([]);
  });
});
