import { which } from "../runtime/processes.ts";
import type { CliDetector } from "./cli-detect-contract.ts";
import { VENDOR_COMMAND, type Vendor } from "./harness-types.ts";

/**
 * Where each vendor's CLI is, looked up once per process (a daemon at its first harness question, which is at
 * boot for the tool list): installing a CLI later takes a restart, as the spec says ("detected at boot").
 */
export function createCliDetector(path: string | undefined): CliDetector {
  const found = new Map<Vendor, string | null>();
  return (vendor) => {
    if (!found.has(vendor)) found.set(vendor, which(VENDOR_COMMAND[vendor], path !== undefined ? { PATH: path } : {}));
    return found.get(vendor)!;
  };
}
