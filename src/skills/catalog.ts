import type { Trust } from "../capabilities/caller.ts";
import { listEmbedded, readEmbedded } from "../embedded/assets.ts";
import { defineError, isFermixError } from "../error.ts";
import { byCodeUnits } from "./name-order.ts";
import { parseSkill, type SkillDoc } from "./parse.ts";
import { resolveReference } from "./references.ts";
import { bundledFolders, type EmbeddedFiles, homeFolders, type SkillFolder, type SkillSource } from "./sources.ts";

export const SkillNotFound = defineError<{ name: string }>("skill_not_found");
export const SkillFileNotFound = defineError<{ name: string; file: string }>("skill_file_not_found");

export type Skill = SkillDoc & {
  source: SkillSource;
  /** Bundled and home skills are the owner's (operator); plugin skills run at guest trust whoever calls them. */
  trust: Trust;
  /** Where its SKILL.md is, for people: `skills/<name>/SKILL.md` inside the binary, or a path on disk. */
  file: string;
  /** Its other Markdown files, relative to the folder (`plugins.md`, `reference/api.md`), read on demand. */
  references: string[];
  /** Set on a home skill that takes the place of the bundled skill of the same name. */
  overrides?: "bundled";
  plugin?: string;
};

/** A SKILL.md that could not be loaded: skipped, reported, never fatal. */
export type SkillLoadError = { file: string; reason: string; field?: string };

export type SkillSnapshot = { skills: Skill[]; errors: SkillLoadError[] };
export type SkillDiff = { added: string[]; removed: string[]; changed: string[]; errors: SkillLoadError[] };
export type SkillReload = SkillDiff & { skills: Skill[] };

export type SkillCatalogDeps = {
  /** The files embedded in the binary; defaults to src/embedded/assets.ts. */
  embedded?: EmbeddedFiles;
  /** `$FERMIX_HOME/skills`. */
  homeSkillsDir: string;
  /** Skill folders offered by installed plugins (source "plugin"); read on every load. */
  pluginSkills?: () => SkillFolder[] | Promise<SkillFolder[]>;
};

export type SkillCatalog = {
  homeSkillsDir: string;
  /** The skills, scanning the sources the first time; later calls return what the last scan found. */
  load(): Promise<SkillSnapshot>;
  /** Scans the sources again and says what changed since the previous scan. */
  reload(): Promise<SkillReload>;
  /** What the last scan found (empty before the first): for building a prompt without waiting. */
  current(): SkillSnapshot;
  /** A skill's body, or one of its reference files by name (`plugins`, `plugins.md`, `reference/plugins.md`). */
  view(name: string, file?: string): Promise<{ skill: Skill; file?: string; text: string }>;
};

/** A skill as one scan found it; `text` is its SKILL.md as read, which a later scan compares (see `sameSkill`). */
type Entry = { skill: Skill; folder: SkillFolder; text: string };
type State = { entries: Map<string, Entry>; errors: SkillLoadError[] };

/**
 * Every skill fermix knows, from three sources: bundled in the binary, the owner's `$FERMIX_HOME/skills`
 * (a home skill replaces the bundled one of the same name), and plugins (which can never take a name
 * the owner's skills already use). A broken SKILL.md is listed in `errors` and the rest still load.
 */
export function createSkillCatalog(deps: SkillCatalogDeps): SkillCatalog {
  const embedded = deps.embedded ?? {
    list: () => listEmbedded(["skills"]),
    read: (path: string) => readEmbedded(path),
  };
  let state: State = { entries: new Map(), errors: [] };
  let loaded: Promise<State> | undefined;
  // Scans run one at a time, so two reloads never interleave their results.
  let queue: Promise<unknown> = Promise.resolve();

  const scanInOrder = () => {
    const next = queue.then(() => scan(embedded, deps));
    queue = next.catch(() => {});
    return next;
  };
  const snapshot = (s: State): SkillSnapshot => ({
    skills: [...s.entries.values()].map((e) => e.skill),
    errors: s.errors,
  });
  const ensure = () => {
    loaded ??= scanInOrder().then((fresh) => {
      state = fresh;
      return fresh;
    });
    return loaded;
  };

  return {
    homeSkillsDir: deps.homeSkillsDir,
    load: async () => snapshot(await ensure()),
    async reload() {
      // Before any scan, everything found now is new.
      const before: State = loaded ? await loaded : { entries: new Map(), errors: [] };
      const after = await scanInOrder();
      state = after;
      loaded = Promise.resolve(after);
      return { ...diff(before, after), skills: snapshot(after).skills };
    },
    current: () => snapshot(state),
    async view(name, file) {
      const entry = (await ensure()).entries.get(name);
      if (!entry) {
        const known = [...state.entries.keys()].join(", ") || "none";
        throw SkillNotFound(`there is no skill named "${name}" (skills: ${known})`, { name });
      }
      if (file === undefined || file === "" || file === "SKILL.md")
        return { skill: entry.skill, text: entry.skill.body };
      const reference = resolveReference(entry.skill.references, file);
      if (!reference) {
        const offered = entry.skill.references.join(", ") || "none";
        throw SkillFileNotFound(`skill "${name}" has no file "${file}" (its files: ${offered})`, { name, file });
      }
      return { skill: entry.skill, file: reference, text: await entry.folder.read(reference) };
    },
  };
}

async function scan(embedded: EmbeddedFiles, deps: SkillCatalogDeps): Promise<State> {
  const errors: SkillLoadError[] = [];
  const home = homeFolders(deps.homeSkillsDir);
  errors.push(...home.problems);
  let plugins: SkillFolder[] = [];
  try {
    plugins = deps.pluginSkills ? await deps.pluginSkills() : [];
  } catch (err) {
    errors.push({ file: "plugins", reason: `could not list plugin skills: ${messageOf(err)}` });
  }

  const bundled = new Map<string, Entry>();
  for (const folder of bundledFolders(embedded)) {
    const entry = await readFolder(folder, errors);
    if (entry) bundled.set(entry.skill.name, entry);
  }
  const entries = new Map(bundled);
  for (const folder of home.folders) {
    const entry = await readFolder(folder, errors);
    if (!entry) {
      // A broken override must not take the working bundled skill away with it.
      if (bundled.has(folder.name)) errors.at(-1)!.reason += "; the bundled skill of that name is used instead";
      continue;
    }
    if (bundled.has(entry.skill.name)) entry.skill.overrides = "bundled";
    entries.set(entry.skill.name, entry);
  }
  for (const folder of plugins) {
    const entry = await readFolder({ ...folder, source: "plugin" }, errors);
    if (!entry) continue;
    const taken = entries.get(entry.skill.name);
    if (taken) {
      // Plugin content runs at guest trust; it may not stand in for one of the owner's skills.
      errors.push({
        file: entry.skill.file,
        field: "name",
        reason: `the name "${entry.skill.name}" is already used by a ${taken.skill.source} skill; this plugin skill is skipped`,
      });
      continue;
    }
    entries.set(entry.skill.name, entry);
  }
  const sorted = new Map([...entries].sort(([a], [b]) => byCodeUnits(a, b)));
  return { entries: sorted, errors };
}

async function readFolder(folder: SkillFolder, errors: SkillLoadError[]): Promise<Entry | undefined> {
  const file = `${folder.location}/SKILL.md`;
  if (!folder.files.includes("SKILL.md")) {
    const near = folder.files.find((f) => f.toLowerCase() === "skill.md");
    const hint = near ? ` (found ${near}: the name must be exactly SKILL.md)` : "";
    errors.push({ file, reason: `the folder has no SKILL.md${hint}` });
    return undefined;
  }
  let text: string;
  let doc: SkillDoc;
  try {
    text = await folder.read("SKILL.md");
    doc = parseSkill(text, { file, folder: folder.name });
  } catch (err) {
    const field = isFermixError(err) ? (err.data.field as string | undefined) : undefined;
    // parseSkill's messages start with the file already; keep one copy of it.
    const reason = messageOf(err).replace(`${file}: `, "");
    errors.push(field ? { file, field, reason } : { file, reason });
    return undefined;
  }
  const references = folder.files.filter((f) => f !== "SKILL.md");
  const trust: Trust = folder.source === "plugin" ? "guest" : "operator";
  const skill: Skill = { ...doc, source: folder.source, trust, file, references };
  if (folder.plugin) skill.plugin = folder.plugin;
  return { skill, folder, text };
}

function diff(before: State, after: State): SkillDiff {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [name, entry] of after.entries) {
    const old = before.entries.get(name);
    if (!old) added.push(name);
    else if (!sameSkill(old, entry)) changed.push(name);
  }
  const removed = [...before.entries.keys()].filter((name) => !after.entries.has(name));
  return { added, removed, changed, errors: after.errors };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Whether a skill is unchanged between two scans: the same place, SKILL.md and list of reference files (their
 * contents are read fresh on every view anyway). Compared field by field rather than as one serialised
 * fingerprint, which copied the whole SKILL.md on every scan (issue 31).
 */
function sameSkill(a: Entry, b: Entry): boolean {
  const [x, y] = [a.skill.references, b.skill.references];
  return (
    a.folder.source === b.folder.source &&
    a.folder.location === b.folder.location &&
    a.text === b.text &&
    x.length === y.length &&
    x.every((file, i) => file === y[i])
  );
}
