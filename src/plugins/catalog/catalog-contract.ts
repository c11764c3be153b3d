import type { CatalogArtifact, CatalogIndex, CatalogPlugin } from "./catalog-index.ts";

/** A plugin artifact read from the catalog, its sha256 and signature already checked. */
export type CatalogArtifactFile = {
  name: string;
  version: string;
  artifact: CatalogArtifact;
  bytes: Uint8Array;
  sha256: string;
  bundle: unknown;
};

export interface Catalog {
  index: CatalogIndex;
  plugins: CatalogPlugin[];
  find(name: string): CatalogPlugin | undefined;
  /** Reads an embedded artifact (default: the latest version), verifying its sha256 and signature. */
  artifact(name: string, version?: string): Promise<CatalogArtifactFile>;
}
