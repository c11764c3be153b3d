import type { Env } from "../config/env.ts";
import type { HARNESS_VENDORS } from "../config/sections/harness.ts";
import { which } from "../runtime/processes.ts";
import type { ConfigWrites } from "./config-writes.ts";

export type HarnessVendor = (typeof HARNESS_VENDORS)[number];

/** The vendor CLIs the run tools launch: codex_run runs `codex`, claude_code_run runs `claude`. */
export const VENDOR_COMMANDS: Record<HarnessVendor, string> = { codex: "codex", claude: "claude" };

export type HarnessView = {
  enabled: boolean;
  approved: boolean;
  defaultVendor?: HarnessVendor;
  /** Each vendor's CLI as found on the daemon's PATH, or null. */
  found: Record<HarnessVendor, string | null>;
};

export type HarnessSave = { approved: boolean; defaultVendor?: HarnessVendor };

/** The Coding agents card: [fermix_core.harness] approved (the one-time consent) and default_vendor. */
export type HarnessWeb = { view(): Promise<HarnessView>; save(s: HarnessSave): Promise<string> };

const TABLE = "fermix_core.harness";

export function createHarnessWeb(
  writes: ConfigWrites,
  env: Env,
  find: (cmd: string) => string | null = (cmd) => which(cmd, { PATH: env.PATH }),
): HarnessWeb {
  return {
    async view() {
      const h = (await writes.config()).fermix_core?.harness;
      return {
        enabled: h?.enabled !== false,
        approved: h?.approved === true,
        ...(h?.default_vendor ? { defaultVendor: h.default_vendor } : {}),
        found: { codex: find(VENDOR_COMMANDS.codex), claude: find(VENDOR_COMMANDS.claude) },
      };
    },
    async save(s) {
      const { changed } = await writes.apply(
        TABLE,
        [
          { table: TABLE, key: "approved", value: s.approved },
          { table: TABLE, key: "default_vendor", value: s.defaultVendor },
        ],
        undefined,
        (c) => {
          const h = c.fermix_core?.harness;
          return (h?.approved ?? false) === s.approved && h?.default_vendor === s.defaultVendor;
        },
      );
      if (!changed) return "coding agents: nothing changed";
      return `coding agents: ${s.approved ? "allowed" : "not allowed"}${
        s.defaultVendor ? `, default ${s.defaultVendor}` : ""
      }; run fermix restart for the daemon to use it`;
    },
  };
}
