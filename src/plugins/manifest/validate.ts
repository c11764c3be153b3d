import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import * as v from "valibot";
import { parseSkill, SkillInvalid } from "../../skills/parse.ts";
import { type CheckOptions, crossFieldIssues } from "./checks.ts";
import { fromValibot, type ManifestIssue, shown, type ValidationResult } from "./issues.ts";
import { Manifest } from "./schema.ts";
import { isRecord } from "./templates.ts";

export type { ManifestIssue } from "./issues.ts";
export type ValidateOptions = CheckOptions;

/** What may sit at a plugin's root; anything else is refused so a tarball carries no surprises. */
export const TOP_LEVEL_ENTRIES = [
  "plugin.json",
  "skills",
  "assets",
  "bin",
  "src",
  "CHANGELOG.md",
  "README.md",
  "LICENSE",
];
/** Dependency manifests and lockfiles, allowed only beside a runtime that would read them. */
export const RUNTIME_TOP_LEVEL_ENTRIES = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "bun.lock",
  "bun.lockb",
  "pnpm-lock.yaml",
  "yarn.lock",
  "pyproject.toml",
  "requirements.txt",
  "uv.lock",
  "poetry.lock",
];
export const VENDOR_TARGETS = ["macos-aarch64", "macos-x86_64", "linux-x86_64", "linux-aarch64"];

/**
 * Checks a parsed `plugin.json` and reports every problem found, not just the first.
 *
 * @example
 * const r = validateManifest(JSON.parse(text), { expectedName: "github", coreVersion: VERSION });
 * if (!r.ok) for (const e of r.errors) console.error(`plugin.json: ${e.path}: ${e.message}`);
 */
export function validateManifest(raw: unknown, opts: ValidateOptions): ValidationResult<Manifest> {
  // valibot takes an array for an object and would list every key as missing; one issue says it better.
  if (!isRecord(raw))
    return { ok: false, errors: [{ path: "", message: `must be a JSON object (got ${shown(raw)})` }] };
  const parsed = v.safeParse(Manifest, raw);
  const errors = parsed.success ? [] : fromValibot(parsed.issues);
  errors.push(...crossFieldIssues(raw, opts));
  if (errors.length || !parsed.success) return { ok: false, errors };
  return { ok: true, manifest: parsed.output };
}

/**
 * Checks a plugin directory as it would be installed: its `plugin.json`, the entries at its root, that the
 * tree holds only plain files and folders (no symlinks), and that every declared skill has a SKILL.md.
 */
export async function validatePluginDir(dir: string, opts: ValidateOptions): Promise<ValidationResult<Manifest>> {
  const rootStat = await lstat(dir).catch(() => undefined);
  if (!rootStat?.isDirectory()) return { ok: false, errors: [fileIssue(".", `${dir} is not a directory`)] };

  let raw: unknown;
  const errors: ManifestIssue[] = [];
  const text = await readFile(join(dir, "plugin.json"), "utf8").catch(() => undefined);
  if (text === undefined) {
    errors.push(fileIssue("plugin.json", "is missing; a plugin's manifest sits at its root"));
  } else {
    try {
      raw = JSON.parse(text);
    } catch (err) {
      errors.push(fileIssue("plugin.json", `is not valid JSON: ${(err as Error).message}`));
    }
  }
  if (raw !== undefined) {
    const result = validateManifest(raw, opts);
    if (!result.ok) errors.push(...result.errors);
  }
  const manifest = isRecord(raw) ? raw : {};
  errors.push(...(await treeIssues(dir, manifest.runtime !== undefined)));
  errors.push(...(await skillFileIssues(dir, manifest.skills)));
  errors.push(...(await assetIssues(dir, manifest)));
  if (errors.length) return { ok: false, errors };
  return validateManifest(raw, opts); // cannot fail here; returns the typed manifest
}

function fileIssue(path: string, message: string): ManifestIssue {
  return { path, message, file: true };
}

async function treeIssues(dir: string, hasRuntime: boolean): Promise<ManifestIssue[]> {
  const issues: ManifestIssue[] = [];
  const allowed = new Set([...TOP_LEVEL_ENTRIES, ...(hasRuntime ? RUNTIME_TOP_LEVEL_ENTRIES : [])]);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (allowed.has(entry.name)) continue;
    const hint = RUNTIME_TOP_LEVEL_ENTRIES.includes(entry.name)
      ? "only allowed when the manifest declares a runtime"
      : `is not allowed at the plugin's root (allowed: ${TOP_LEVEL_ENTRIES.join(", ")})`;
    issues.push(fileIssue(entry.name, hint));
  }
  await walk(dir, "", issues);
  return issues;
}

/** Links could point anywhere on the installing machine, so none are accepted, at any depth. */
async function walk(root: string, rel: string, issues: ManifestIssue[]): Promise<void> {
  const entries: Dirent[] = await readdir(join(root, rel), { withFileTypes: true });
  for (const entry of entries) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isSymbolicLink()) issues.push(fileIssue(path, symlinkAdvice(path)));
    else if (entry.isDirectory()) await walk(root, path, issues);
    else if (!entry.isFile()) issues.push(fileIssue(path, "is not a plain file or folder"));
  }
}

/** One sentence with the way out; npm's bin links are how most authors end up here. */
function symlinkAdvice(path: string): string {
  if (path.split("/").includes("node_modules")) {
    return "is a symlink (npm leaves these in node_modules/.bin) and plugins may hold only plain files and folders, so bundle the server into one file or remove node_modules/.bin (npm install --no-bin-links)";
  }
  return "is a symlink and plugins may hold only plain files and folders, so replace it with what it points to (npm's node_modules/.bin links: bundle the server into one file or npm install --no-bin-links)";
}

async function skillFileIssues(dir: string, skills: unknown): Promise<ManifestIssue[]> {
  if (!Array.isArray(skills)) return [];
  const issues: ManifestIssue[] = [];
  for (const [i, skill] of skills.entries()) {
    if (!isRecord(skill) || typeof skill.path !== "string" || skill.path.split("/").includes("..")) continue;
    const at = `skills[${i}].path`;
    const folder = await lstat(join(dir, skill.path)).catch(() => undefined);
    if (!folder?.isDirectory()) {
      issues.push({
        path: at,
        message: `${JSON.stringify(skill.path)} must be a folder inside the plugin holding SKILL.md`,
      });
      continue;
    }
    const file = `${skill.path}/SKILL.md`;
    const text = await readFile(join(dir, file), "utf8").catch(() => undefined);
    if (text === undefined) {
      issues.push(fileIssue(file, "is missing; every skill folder needs one"));
      continue;
    }
    try {
      const doc = parseSkill(text, { file, folder: basename(skill.path) });
      if (typeof skill.name === "string" && doc.name !== skill.name) {
        issues.push({
          path: `skills[${i}].name`,
          message: `must equal the name in ${file} (${JSON.stringify(doc.name)})`,
        });
      }
    } catch (err) {
      if (!SkillInvalid.is(err)) throw err;
      issues.push(
        fileIssue(file, err.message.startsWith(`${file}: `) ? err.message.slice(file.length + 2) : err.message),
      );
    }
  }
  return issues;
}

async function assetIssues(dir: string, manifest: Record<string, unknown>): Promise<ManifestIssue[]> {
  const issues: ManifestIssue[] = [];
  const logo = isRecord(manifest.interface) ? manifest.interface.logo : undefined;
  if (typeof logo === "string" && !logo.split("/").includes("..")) {
    const stat = await lstat(join(dir, logo)).catch(() => undefined);
    if (!stat?.isFile())
      issues.push({ path: "interface.logo", message: `${JSON.stringify(logo)} is not a file in the plugin` });
  }
  const runtime = isRecord(manifest.runtime) ? manifest.runtime : undefined;
  if (runtime?.vendored === true && typeof runtime.command === "string" && !/[\\/]|^\.\.?$/.test(runtime.command)) {
    const found = await Promise.all(
      VENDOR_TARGETS.map((t) =>
        lstat(join(dir, "bin", t, runtime.command as string)).then(
          (s) => s.isFile(),
          () => false,
        ),
      ),
    );
    if (!found.some(Boolean)) {
      issues.push({
        path: "runtime.vendored",
        message: `is true but no bin/<target>/${runtime.command} exists (targets: ${VENDOR_TARGETS.join(", ")})`,
      });
    }
  }
  return issues;
}
