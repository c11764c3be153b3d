import { defineCheck } from "./check.ts";

/** The plugin catalog embedded in this binary still verifies against the keys the binary trusts. */
export const catalogCheck = defineCheck({
  id: "catalog",
  async run(ctx) {
    try {
      const catalog = await ctx.loadCatalog();
      const n = catalog.plugins.length;
      return [
        {
          id: "catalog",
          title: "catalog",
          status: "ok",
          detail: `the embedded plugin catalog's signature verifies (${n} plugin${n === 1 ? "" : "s"})`,
        },
      ];
    } catch (err) {
      return [
        {
          id: "catalog",
          title: "catalog",
          status: "fail",
          detail: err instanceof Error ? err.message : String(err),
          fix: "reinstall fermix from a signed release (install.sh, or fermix upgrade); plugins cannot be installed until then",
        },
      ];
    }
  },
});
