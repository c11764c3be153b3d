import type { SlashAnswer } from "./gateway/slash/command.ts";
import type { SlashContextDeps, SlashOrigin } from "./gateway/slash/slash-context.ts";
import type { createSoulDeps } from "./gateway/slash/soul-deps.ts";
import { onFirstCall } from "./lazy.ts";

export type AppSlashDeps = Omit<SlashContextDeps, "soul"> & {
  /** What /soul's deps are built from, asked when /soul runs (memory.db opened then). */
  soul: () => Parameters<typeof createSoulDeps>[0];
};

/**
 * Slash commands as the composition root wires them: their code (src/gateway/slash.ts and slash/) loads with the
 * first message that is one, so a plain turn, the one-shot `fermix ask` included, never evaluates it.
 */
export function lazySlash(deps: AppSlashDeps): (text: string, origin: SlashOrigin) => Promise<SlashAnswer | undefined> {
  const handler = onFirstCall(async () => {
    const [{ createSlashContexts }, { createSoulDeps }, { handleSlash }] = await Promise.all([
      import("./gateway/slash/slash-context.ts"),
      import("./gateway/slash/soul-deps.ts"),
      import("./gateway/slash.ts"),
    ]);
    const context = createSlashContexts({ ...deps, soul: () => createSoulDeps(deps.soul()) });
    return (text: string, origin: SlashOrigin) => handleSlash(text, context(origin));
  });
  return async (text, origin) => (await handler())(text, origin);
}
