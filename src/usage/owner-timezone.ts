import type { Config } from "../config/schema.ts";
import { isValidTimeZone } from "../jobs/zoned-time.ts";

// The turn runner's and the job service's default: an owner who never set a zone has New York's.
const DEFAULT_TIMEZONE = "America/New_York";

/** The zone the owner's days are cut in: [fermix_core.personalization] timezone, when Intl knows it. */
export function ownerTimezone(config: Config): string {
  const zone = config.fermix_core?.personalization?.timezone;
  return zone && isValidTimeZone(zone) ? zone : DEFAULT_TIMEZONE;
}
