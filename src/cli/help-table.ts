import { renderedHelpTable } from "./help-prerender.ts" with { type: "macro" };

/**
 * The `--help` text of every command but ask (src/cli/help-table-ask.ts), rendered when this file is bundled (a Bun
 * macro: the build inlines the finished strings). Loaded only when an argument asks for help.
 */
export const HELP_TABLE: Readonly<Record<string, string>> = await renderedHelpTable("others");
