import { renderedHelpTable } from "./help-prerender.ts" with { type: "macro" };

/**
 * `fermix ask --help`'s text, rendered when this file is bundled (a Bun macro), apart from every other command's
 * (src/cli/help-table.ts): the help scripts ask for most loads ~2.5 KB of strings rather than the ~48 KB of all of
 * them (issue 31: `ask --help` 0.14 ms sooner, 61 interleaved pairs on fresh copies). Loaded only when an argument
 * asks for help.
 */
export const ASK_HELP_TABLE: Readonly<Record<string, string>> = await renderedHelpTable("ask");
