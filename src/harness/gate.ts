import type { Config } from "../config/schema.ts";
import { HARNESS_VENDORS, type Vendor } from "./harness-types.ts";

/**
 * Which harness tools the owner is offered: none while [fermix_core.harness] enabled = false or before the
 * one-time consent (`approved`); then the run-history tools, and each vendor's run tool when its CLI was found
 * (only `default_vendor`'s when that is set).
 */
export function offeredHarness(
  config: Config,
  cliFound: (vendor: Vendor) => boolean,
): { history: boolean; vendors: Vendor[] } {
  const harness = config.fermix_core?.harness;
  if (harness?.enabled === false || harness?.approved !== true) return { history: false, vendors: [] };
  const wanted = harness.default_vendor ? [harness.default_vendor] : [...HARNESS_VENDORS];
  return { history: true, vendors: wanted.filter((vendor) => cliFound(vendor)) };
}
