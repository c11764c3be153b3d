import { defineCheck } from "./check.ts";

/** config.toml parses under the strict schema, its routing pairs make sense; the error names file, section and key. */
export const configCheck = defineCheck({
  id: "config",
  async run(ctx) {
    const file = ctx.display(ctx.paths.config);
    if (ctx.configError) {
      return [
        {
          id: "config",
          title: "config",
          status: "fail",
          detail: ctx.configError.message.split(ctx.paths.config).join(file),
          fix: `edit ${file} where the error points, or run fermix setup`,
        },
      ];
    }
    if (!ctx.configExists) {
      return [
        {
          id: "config",
          title: "config",
          status: "ok",
          detail: `${file} does not exist; settings come from the environment (fermix setup writes one)`,
        },
      ];
    }
    return [{ id: "config", title: "config", status: "ok", detail: `${file} is valid` }];
  },
});
