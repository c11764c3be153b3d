import { defineCheck, skippedForConfig } from "./check.ts";

const ID = "cloud-rail";
/** The doctor's title column is ten wide. */
const TITLE = "cloud rail";

/** What this build says of `[fermix_core.harness] cloud_enabled = true`: codex_cloud_run is not in it. */
export const NO_CLOUD_RAIL = "enabled in config, but this build has no cloud coding rail";

/** The coding harness's cloud rail (spec: self-knowledge.md, "Coding harness"): off, or asked for and absent. */
export const cloudRailCheck = defineCheck({
  id: ID,
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig(ID, TITLE)];
    if (ctx.config.fermix_core?.harness?.cloud_enabled !== true) {
      return [{ id: ID, title: TITLE, status: "ok", detail: "off" }];
    }
    return [
      {
        id: ID,
        title: TITLE,
        status: "warn",
        detail: NO_CLOUD_RAIL,
        fix: "remove [fermix_core.harness] cloud_enabled from config.toml; local codex_run and claude_code_run still work",
      },
    ];
  },
});
