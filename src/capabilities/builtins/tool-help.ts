import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { createRegistry } from "../registry.ts";
import { defineTool } from "../tool.ts";

export const toolHelp = defineTool({
  name: "tool_help",
  deferrable: true,
  description: "Show one tool's full argument schema, limits and failure modes.",
  policy: "meta",
  readOnly: true,
  parameters: lazySchema(() => v.object({ name: v.pipe(v.string(), v.minLength(1)) })),
  async execute(args, ctx) {
    // Only tools this caller may use: a guest cannot read the schema of a tool it cannot call.
    const tool = ctx.surface().find((t) => t.name === args.name);
    if (!tool) {
      // An unadvertised tool (the other coding vendor's) stays out of every list the model reads.
      const names = ctx
        .surface()
        .filter((t) => !t.unadvertised)
        .map((t) => t.name);
      return {
        isError: true,
        content: `There is no tool named "${args.name}" available here. Available: ${names.join(", ")}`,
      };
    }
    const spec = createRegistry([tool]).spec(tool);
    return [
      `${tool.name}: ${tool.description}`,
      tool.help ?? "",
      `Arguments (JSON Schema):\n${JSON.stringify(spec.parameters, null, 2)}`,
    ]
      .filter(Boolean)
      .join("\n\n");
  },
});
