import { templateDrift } from "../agent/prompt-files.ts";
import { defineCheck } from "./check.ts";

/**
 * The spec's "bootstrap templates" row: prompt files are seeded once and are the owner's after that, so a
 * template improved in a later build never reaches them. This says which shipped templates moved on since
 * this install was seeded; it never looks at the owner's edits.
 */
export const templatesCheck = defineCheck({
  id: "templates",
  async run(ctx) {
    const title = "templates";
    const drift = templateDrift(ctx.paths);
    if (!drift) {
      return [
        { id: "templates", title, status: "ok", detail: "no seed record (seeded before fermix kept one, or not yet)" },
      ];
    }
    if (!drift.moved.length) {
      return [
        { id: "templates", title, status: "ok", detail: `${drift.tracked.join(", ")} match the shipped templates` },
      ];
    }
    const dir = ctx.display(ctx.paths.promptFiles.guidance.replace(/\/[^/]+$/, ""));
    const first = drift.moved[0]!;
    return [
      {
        id: "templates",
        title,
        status: "warn",
        detail: `the shipped ${drift.moved.join(", ")} changed since this install was seeded; your copies in ${dir} are kept as they are`,
        fix: `compare: fermix doctor --template ${first} | diff ${dir}/${first} - (take what you like; nothing is overwritten)`,
      },
    ];
  },
});
