import type { Config } from "../config/schema.ts";
import type { Catalog } from "./catalog/catalog-contract.ts";
import type { DevLocalProblem } from "./dev-local.ts";
import type { Manifest } from "./manifest/schema.ts";
import type { PluginStatus } from "./readiness.ts";
import type { PluginStore } from "./store/plugin-store.ts";
import type { InstalledRecord } from "./store/store-record.ts";

export type PluginSource = "bundled" | "installed" | "dev_local" | "catalog";

export type PluginEntry = {
  name: string;
  source: PluginSource;
  /** The version on this machine (installed, bundled once unpacked, or dev_local). */
  version?: string;
  latest?: string;
  description: string;
  /** From the catalog index, for a plugin whose manifest is not on this machine yet. */
  catalogAuth?: { type: string; provider?: string | null };
  manifest?: Manifest;
  dir?: string;
  incompatible?: boolean;
  /** Why a dev_local folder or an installed tree did not load. */
  loadError?: string;
};

export type PluginState = PluginEntry & { enabled: boolean; status: PluginStatus };

/**
 * Everything fermix knows about plugins, joined: the signed catalog in the binary, the versioned store,
 * dev_local folders, config.toml's enabled list and settings, and stored secrets.
 */
export interface PluginHost {
  /** Installs a catalog plugin into the store, verified; bundled ones only when `allowBundled`. */
  install(name: string, version?: string, opts?: { allowBundled?: boolean }): Promise<InstalledRecord>;
  /** Every plugin fermix can name: bundled, installed, dev_local, and the rest of the catalog. */
  entries(config: Config, opts?: { catalog?: boolean }): Promise<PluginEntry[]>;
  /** What under dev_local did not load. Cheap: no catalog, nothing unpacked, nothing when dev_local is unset. */
  problems(config: Config): Promise<DevLocalProblem[]>;
  states(config: Config, opts?: { catalog?: boolean }): Promise<PluginState[]>;
  /**
   * What a turn needs: the enabled plugins' states (bundled ones unpacked on first use). Nothing is read
   * at all when no plugin is enabled, so a plain `fermix ask` pays nothing for plugins.
   */
  activeStates(config: Config): Promise<PluginState[]>;
  /** Bundled plugins that are enabled but not unpacked yet are unpacked now (verified like any install). */
  ensureBundled(config: Config): Promise<void>;
  store: PluginStore;
  catalogIndex(): Promise<Catalog["index"]>;
}
