import { basename, resolve } from "node:path";
import { redact } from "../observability/redact.ts";
import type { ManifestIssue } from "../plugins/manifest/issues.ts";
import type { Manifest } from "../plugins/manifest/schema.ts";
import { validatePluginDir } from "../plugins/manifest/validate.ts";
import { VERSION } from "../version.ts";
import { EXIT } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

export type ValidateIo = { out: (text: string) => Promise<void>; err: (text: string) => Promise<void> };

/**
 * `fermix plugins validate DIR [--json]`: the checks an install runs, for a plugin author's checkout.
 * The directory's name must be the plugin's name, as it must be under `dev_local`.
 * Prints `ok: NAME VERSION (…)` and returns 0, or one line per issue on stderr and returns 1.
 */
export async function runValidate(
  dir: string,
  json: boolean,
  io: ValidateIo = { out: writeOut, err: writeErr },
): Promise<number> {
  const root = resolve(dir);
  const result = await validatePluginDir(root, { expectedName: basename(root), coreVersion: VERSION });
  if (result.ok) {
    const summary = summarize(result.manifest);
    if (json) await io.out(`${JSON.stringify({ schema_version: 1, ok: true, result: summary })}\n`);
    else await io.out(`ok: ${summary.name} ${summary.version} (${describe(summary)})\n`);
    return EXIT.ok;
  }
  const count = result.errors.length;
  const sentence = `${dir}: ${count} ${count === 1 ? "problem" : "problems"} in the plugin`;
  if (json) {
    const issues = result.errors.map((e) => ({ ...e, message: redact(e.message) }));
    const error = { code: "plugin_invalid", sentence: redact(sentence), data: { dir: root, issues } };
    await io.out(`${JSON.stringify({ schema_version: 1, ok: false, error })}\n`);
  } else {
    for (const issue of result.errors) await io.err(`${renderIssue(issue)}\n`);
    await io.err(`fermix: ${sentence}\n`);
  }
  return EXIT.error;
}

/** `plugin.json: tools[2].request.url: must be https (got "http://…")`, or `skills/x/SKILL.md: is missing …`. */
export function renderIssue(issue: ManifestIssue): string {
  const where = issue.file ? issue.path : `plugin.json: ${issue.path || "top level"}`;
  return redact(`${where}: ${issue.message}`);
}

type Summary = { name: string; version: string; tools: number; rails: string[]; auth: string };

function summarize(m: Manifest): Summary {
  const rails = [...new Set(m.tools.map((t) => t.rail))].sort();
  return { name: m.name, version: m.version, tools: m.tools.length, rails, auth: m.auth.type };
}

function describe(s: Summary): string {
  const tools = `${s.tools} ${s.tools === 1 ? "tool" : "tools"}`;
  return `${tools}, rail ${s.rails.join("+")}, auth ${s.auth}`;
}
