import type { App } from "../../src/app-contract.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { createPluginHost } from "../../src/plugins/plugin-host.ts";
import { createPluginStore } from "../../src/plugins/store/plugin-store.ts";
import { VERSION } from "../../src/version.ts";

/** The host `fermix plugins …` builds, on the app's FERMIX_HOME (for installing in tests). */
export async function pluginContextFor(app: App) {
  return createPluginHost({
    paths: app.paths,
    coreVersion: VERSION,
    catalog: () => loadCatalog(),
    store: createPluginStore({ paths: app.paths.plugins }),
    secrets: createSecretStore({ secretsDir: app.paths.secrets }),
  });
}
