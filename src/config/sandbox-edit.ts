import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { parse } from "smol-toml";
import { defineError } from "../error.ts";
import { writePrivateFileAtomically } from "../fs/write-private-file.ts";
import { parseConfig } from "./load.ts";
import type { Config } from "./schema.ts";
import {
  type ArrayValue,
  insertElement,
  outline,
  readArray,
  removeElement,
  type Statement,
  splice,
  tomlString,
} from "./toml-text.ts";

/**
 * `fermix grant|revoke path` and `fermix sandbox mode`: small text edits to the [sandbox] table of
 * config.toml. The file is the user's — comments, order, spacing and the other tables stay byte for byte —
 * so nothing is re-serialised: the edit touches only the `mode` value or one element of `allowed_roots`
 * (adding the key or the table when missing). The result is parsed and checked before it replaces the
 * file atomically (temp file in the same directory + rename, mode 0600).
 */
export const GrantRefused = defineError<{ path: string }>("sandbox_not_grantable");
export const NotGranted = defineError<{ path: string; granted: string[] }>("sandbox_not_granted");
export const ConfigEditFailed = defineError<{ file: string }>("config_edit_failed");

export type Grantable = (path: string) => Promise<{ ok: true; path: string } | { ok: false; reason: string }>;
export type ConfigEdit = { file: string; path: string; changed: boolean; before: string; after: string };
type Mode = NonNullable<NonNullable<Config["sandbox"]>["mode"]>;

/** Adds the canonical form of `path` to [sandbox] allowed_roots, after `isGrantable` accepts it. */
export async function grantPath(configFile: string, path: string, isGrantable: Grantable): Promise<ConfigEdit> {
  const verdict = await isGrantable(path);
  if (!verdict.ok) throw GrantRefused(verdict.reason, { path });
  const granted = verdict.path;
  return edit(
    configFile,
    granted,
    (doc) => {
      const roots = doc.values("allowed_roots");
      if (roots?.elements.some((e) => e.value === granted)) return null;
      if (roots) return insertElement(doc.text, roots, tomlString(granted), doc.nl);
      return doc.addKey(`allowed_roots = [${tomlString(granted)}]`, "end");
    },
    (config) => config.sandbox?.allowed_roots?.includes(granted) === true,
  );
}

/** Removes `path` from allowed_roots; an entry matches as written, or when both name the same directory. */
export async function revokePath(
  configFile: string,
  path: string,
  opts: { userHome?: string } = {},
): Promise<ConfigEdit> {
  const same = (entry: string) => entry === path || normalise(entry, opts.userHome) === normalise(path, opts.userHome);
  let removed: string[] = [];
  const result = edit(
    configFile,
    path,
    (doc) => {
      const roots = doc.values("allowed_roots");
      const matches = roots?.elements.filter((e) => same(e.value)) ?? [];
      if (!matches.length) {
        const granted = roots?.elements.map((e) => e.value) ?? [];
        const listed = granted.length ? granted.join(", ") : "none";
        throw NotGranted(`${path} is not a granted root in ${configFile} (granted: ${listed}).`, { path, granted });
      }
      removed = matches.map((e) => e.value);
      // Last first, so the spans of the earlier ones stay where they were.
      return matches.reverse().reduce((text, element) => removeElement(text, element), doc.text);
    },
    (config) => !removed.some((r) => config.sandbox?.allowed_roots?.includes(r)),
  );
  return { ...result, path: removed[0] ?? path };
}

/** Sets [sandbox] mode. */
export async function setMode(configFile: string, mode: Mode): Promise<ConfigEdit> {
  return edit(
    configFile,
    mode,
    (doc) => {
      const current = doc.statement("mode");
      if (current && (parse(`v = ${current.value}`) as { v: unknown }).v === mode) return null;
      if (current) return splice(doc.text, current.valueStart, current.valueEnd, tomlString(mode));
      return doc.addKey(`mode = ${tomlString(mode)}`, "start");
    },
    (config) => config.sandbox?.mode === mode,
  );
}

function edit(
  file: string,
  path: string,
  change: (doc: SandboxDoc) => string | null,
  applied: (c: Config) => boolean,
): ConfigEdit {
  return { ...editConfigText(file, "sandbox", (text) => change(readDoc(text, file)), applied), path };
}

/**
 * The cycle every text edit of config.toml shares: read (a missing file is empty), refuse a file that is
 * already invalid, apply `change`, re-parse the result and check with `applied` that it says what was meant,
 * then replace the file atomically. `change` returns null when there is nothing to do.
 */
export function editConfigText(
  file: string,
  section: string,
  change: (text: string) => string | null,
  applied: (c: Config) => boolean,
): { file: string; changed: boolean; before: string; after: string } {
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  parseConfig(before, file); // an invalid file is the user's to fix first; editing it could only make it worse
  const after = change(before) ?? before;
  if (after === before) return { file, changed: false, before, after };
  if (!applied(parseConfig(after, file))) {
    throw ConfigEditFailed(`${file}: the edit to [${section}] did not take effect; the file was left unchanged.`, {
      file,
    });
  }
  writeConfigAtomically(file, after);
  return { file, changed: true, before, after };
}

type SandboxDoc = {
  text: string;
  nl: string;
  statement(key: string): Statement | undefined;
  values(key: string): ArrayValue | undefined;
  addKey(line: string, where: "start" | "end"): string;
};

function readDoc(text: string, file: string): SandboxDoc {
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const { tables, topKeys } = outline(text);
  if (topKeys.some((k) => k === "sandbox" || k.startsWith("sandbox."))) {
    throw ConfigEditFailed(
      `${file}: [sandbox] is written as dotted keys or an inline table at the top; edit it by hand.`,
      { file },
    );
  }
  const table = tables.find((t) => t.name === "sandbox");
  const statement = (key: string) => table?.body.find((s) => s.key === key);
  return {
    text,
    nl,
    statement,
    values(key) {
      const s = statement(key);
      if (!s) return undefined;
      if (text[s.valueStart] !== "[")
        throw ConfigEditFailed(`${file}: [sandbox] ${key} is not a list; edit it by hand.`, { file });
      return readArray(text, s.valueStart);
    },
    addKey(line, where) {
      if (!table) {
        const gap = text === "" ? "" : text.endsWith("\n") ? nl : nl + nl;
        return `${text}${gap}[sandbox]${nl}${line}${nl}`;
      }
      const after = where === "end" && table.body.length ? table.body.at(-1)!.lineEnd : table.headerEnd;
      const lead = after >= text.length && !text.endsWith("\n") ? nl : "";
      const at = Math.min(after + 1, text.length);
      return splice(text, at, at, `${lead}${line}${nl}`);
    },
  };
}

function normalise(path: string, home: string | undefined): string {
  const expanded = home && (path === "~" || path.startsWith("~/")) ? join(home, path.slice(1)) : path;
  if (!isAbsolute(expanded)) return expanded;
  const absolute = resolve(expanded);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** config.toml is written like every private file: atomically, 0600. */
export const writeConfigAtomically = writePrivateFileAtomically;
