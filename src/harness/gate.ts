import type { Config } from "../config/schema.ts";
import { HARNESS_VENDORS, type Vendor } from "./harness-types.ts";

/** The harness tools one config offers: `vendors` are advertised, `quiet` callable by their exact name only. */
export type HarnessOffer = { history: boolean; vendors: Vendor[]; quiet: Vendor[] };

/**
 * Which harness tools the owner is offered: none while [fermix_core.harness] enabled = false or before the
 * one-time consent (`approved`); then the run-history tools, and each vendor's run tool when its CLI was found.
 * With `default_vendor` set only that vendor's run tool is advertised; the other stays quiet (issue 27): the model
 * reaches for the owner's choice, yet a call of the other by name, or the owner asking for it, still runs.
 */
export function offeredHarness(config: Config, cliFound: (vendor: Vendor) => boolean): HarnessOffer {
  const harness = config.fermix_core?.harness;
  if (harness?.enabled === false || harness?.approved !== true) return { history: false, vendors: [], quiet: [] };
  const found = HARNESS_VENDORS.filter((vendor) => cliFound(vendor));
  const preferred = harness.default_vendor;
  if (!preferred) return { history: true, vendors: found, quiet: [] };
  return {
    history: true,
    vendors: found.filter((vendor) => vendor === preferred),
    quiet: found.filter((vendor) => vendor !== preferred),
  };
}
