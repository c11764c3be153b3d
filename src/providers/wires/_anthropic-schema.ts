import { anthropicHasOutputFormat, anthropicSchema } from "../structured-output.ts";
import type { ModelRequest } from "../types.ts";
import type { ToolNames } from "./_claude-code.ts";

/** The forced tool that carries a structured answer on Claude models without `output_config.format`. */
export const ANSWER_TOOL = "structured_answer";

/**
 * Asks Anthropic for a structured answer (`ask --schema`); returns the forced answer tool's wire name when the
 * answer will come as that tool's input rather than as text.
 *
 * Models with native structured output get `output_config.format` (GA, no beta header): tools stay usable
 * and only the final text is constrained. Older models get the classic forced tool: the schema is the input
 * schema of one tool and `tool_choice` names it. A forced choice means the model calls that tool and nothing
 * else, so on those models the turn answers at once without using fermix's tools (chosen over `tool_choice:
 * any`, which would let the model loop on tools but never guarantees it ends with the answer tool). Extended
 * thinking cannot be combined with a forced tool, so it is dropped.
 */
export function applySchema(
  body: Record<string, unknown>,
  request: ModelRequest,
  names: ToolNames,
): string | undefined {
  if (!request.schema) return undefined;
  if (anthropicHasOutputFormat(request.model)) {
    const config = (body.output_config as Record<string, unknown> | undefined) ?? {};
    body.output_config = { ...config, format: { type: "json_schema", schema: anthropicSchema(request.schema) } };
    return undefined;
  }
  const name = names.toWire(ANSWER_TOOL);
  body.tools = [
    { name, description: "Give the final answer, shaped by this tool's input schema.", input_schema: request.schema },
  ];
  body.tool_choice = { type: "tool", name };
  delete body.thinking;
  return name;
}
