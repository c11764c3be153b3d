import type { TurnInput } from "../agent/turn.ts";
import type { App } from "../app-contract.ts";
import type { Caller } from "../capabilities/caller.ts";
import { defineError } from "../error.ts";
import type { TurnDocument } from "../media/image-parts.ts";
import type { AskUsage } from "../protocol/ask-answer-schemas.ts";
import type { AskRequest } from "../protocol/schemas.ts";
import type { Usage } from "../providers/types.ts";

/** `--tools` named something that is no built-in this caller has; the CLI answers it as a usage error (exit 2). */
export const UnknownTool = defineError<{ tool: string; valid: string[] }>("unknown_tool");

/**
 * What an ask's scripting options add to its turn: the attachments split into pictures and documents, the
 * built-ins it may use, and its extra instructions. Tool names are checked here, against the registry this
 * process runs, so a typo is refused before any model sees the turn.
 */
export function askTurnExtras(
  app: Pick<App, "registry">,
  request: AskRequest,
  caller: Caller,
): Pick<TurnInput, "images" | "documents" | "allowedTools" | "instructions"> {
  const images: NonNullable<TurnInput["images"]>[number][] = [];
  const documents: TurnDocument[] = [];
  for (const a of request.attachments ?? []) {
    const data = new Uint8Array(Buffer.from(a.data, "base64"));
    if (a.mime === "application/pdf") documents.push({ mime: a.mime, name: a.name, data });
    else images.push({ mime: a.mime, data });
  }
  if (request.tools)
    checkToolNames(
      request.tools,
      app.registry.surface(caller).map((t) => t.name),
    );
  return {
    ...(images.length ? { images } : {}),
    ...(documents.length ? { documents } : {}),
    ...(request.tools ? { allowedTools: request.tools } : {}),
    ...(request.system ? { instructions: request.system } : {}),
  };
}

function checkToolNames(wanted: readonly string[], valid: string[]): void {
  const unknown = wanted.find((name) => !valid.includes(name));
  if (unknown === undefined) return;
  throw UnknownTool(
    `ask: --tools: no built-in tool is named "${unknown}"; the built-ins are: ${valid.sort().join(", ")}`,
    {
      tool: unknown,
      valid,
    },
  );
}

/** Sums a turn's model calls; cached and reasoning stay 0 where the wire did not report them. */
export function createUsageTally(): { add(usage: Usage): void; total(): AskUsage } {
  const sum: AskUsage = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
  return {
    add(u) {
      sum.input_tokens += u.inputTokens;
      sum.cached_input_tokens += u.cachedInputTokens ?? 0;
      sum.output_tokens += u.outputTokens;
      sum.reasoning_tokens += u.reasoningTokens ?? 0;
    },
    total: () => ({ ...sum }),
  };
}
