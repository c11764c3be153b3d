import type { Vendor } from "./harness-types.ts";

/** Where a vendor's CLI is on the daemon's PATH; null when it is not installed. */
export type CliDetector = (vendor: Vendor) => string | null;
