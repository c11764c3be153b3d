import type { CliResult } from "../plugins/settings/cli.ts";
import { tellDaemonToReload } from "./_plugins-live.ts";
import { EXIT } from "./exit.ts";
import { jsonEnvelope } from "./json-envelope.ts";
import { writeErr, writeOut } from "./output.ts";

/** The arguments every `fermix plugins …` verb shares. */
export const JSON_ARG = { type: "boolean", description: "print the typed JSON envelope" } as const;
export const PLUGIN_ARG = { type: "positional", required: true, valueHint: "NAME", description: "the plugin" } as const;

/**
 * Does one plugins verb's work and prints its result: tab-separated text (notes on stderr), or the typed
 * envelope with --json. `changes`: the spec has any change to a plugin (enable, disable, install, a setting,
 * a secret) ask a running daemon to re-apply its configuration now, which also starts a quarantined server
 * fresh. Best effort: the change itself is done.
 */
export async function runPluginVerb(
  work: () => Promise<CliResult>,
  opts: { json: boolean | undefined; changes: boolean },
): Promise<number> {
  const result = await work();
  if (opts.changes) await tellDaemonToReload().catch(() => false);
  if (opts.json === true) {
    await writeOut(`${jsonEnvelope({ ok: true, result: result.json })}\n`);
  } else {
    if (result.text) await writeOut(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
    for (const note of result.notes ?? []) await writeErr(`${note}\n`);
  }
  return EXIT.ok;
}
