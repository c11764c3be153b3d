import { parse } from "smol-toml";
import { parseConfig } from "../config/load.ts";
import { ConfigEditFailed, editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import type { ProviderBlock } from "../config/sections/providers.ts";
import { tableDoc, tomlString } from "../config/toml-text.ts";
import { PROVIDERS } from "../providers/descriptors.ts";

/**
 * What setup writes to config.toml, as small in-place edits like `fermix grant` makes: the owner's comments,
 * order and other keys stay as they are, a key already holding the answer is not touched (so the same answers
 * leave the file byte for byte the same), and the result is validated before it replaces the file atomically.
 */
export type SetupChanges = {
  provider: string;
  model: string;
  baseUrl?: string;
  reasoningEffort?: string;
  /** A key was just stored: point the provider's api_key at it. */
  keyring: boolean;
  agentName: string;
  userName?: string;
  timezone: string;
  communicationStyle?: string;
};

const HEADER = "# fermix configuration, written by `fermix setup`. Edit freely: setup keeps comments and other keys.\n";

/** The new text of config.toml; throws (naming the file) when the edit cannot be made safely or would be invalid. */
export function applySetup(text: string, changes: SetupChanges, file: string): string {
  const before = parseConfig(text, file);
  const blocks = (before.fermix_core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  let out = text === "" ? HEADER : text;
  // One primary: the chosen provider takes the flag; the others keep their settings as fallbacks.
  for (const p of PROVIDERS) {
    if (p.id !== changes.provider && blocks[p.id]?.primary === true) {
      out = setKey(out, `fermix_core.providers.${p.id}`, "primary", false, file);
    }
  }
  const table = `fermix_core.providers.${changes.provider}`;
  out = setKey(out, table, "primary", true, file);
  out = setKey(out, table, "default_model", changes.model, file);
  if (changes.baseUrl !== undefined) out = setKey(out, table, "base_url", changes.baseUrl, file);
  if (changes.reasoningEffort !== undefined)
    out = setKey(out, table, "reasoning_effort", changes.reasoningEffort, file);
  if (changes.keyring) out = setKey(out, table, "api_key", "@keyring", file);
  out = setKey(out, "fermix_core.agent", "name", changes.agentName, file);
  if (changes.userName !== undefined)
    out = setKey(out, "fermix_core.personalization", "user_name", changes.userName, file);
  out = setKey(out, "fermix_core.personalization", "timezone", changes.timezone, file);
  if (changes.communicationStyle !== undefined)
    out = setKey(out, "fermix_core.personalization", "communication_style", changes.communicationStyle, file);
  return out === HEADER ? text : out;
}

/** Whether the parsed result says what setup meant. */
export function setupApplied(config: Config, changes: SetupChanges): boolean {
  const core = config.fermix_core;
  const blocks = (core?.providers ?? {}) as Record<string, ProviderBlock | undefined>;
  const block = blocks[changes.provider];
  const primaries = PROVIDERS.filter((p) => blocks[p.id]?.primary === true);
  return (
    block !== undefined &&
    primaries.length === 1 &&
    block.primary === true &&
    block.default_model === changes.model &&
    (changes.baseUrl === undefined || block.base_url === changes.baseUrl) &&
    (changes.reasoningEffort === undefined || block.reasoning_effort === changes.reasoningEffort) &&
    (!changes.keyring || block.api_key === "@keyring") &&
    core?.agent?.name === changes.agentName &&
    (changes.userName === undefined || core?.personalization?.user_name === changes.userName) &&
    core?.personalization?.timezone === changes.timezone &&
    (changes.communicationStyle === undefined ||
      core?.personalization?.communication_style === changes.communicationStyle)
  );
}

/** Checks the edit without writing: what runs before a secret is stored, so a file the owner must fix first leaves no orphan. */
export function previewSetup(text: string, changes: SetupChanges, file: string): { changed: boolean } {
  const after = applySetup(text, changes, file);
  if (after !== text && !setupApplied(parseConfig(after, file), changes)) throw notApplied(file);
  return { changed: after !== text };
}

/** Reads, edits, validates and atomically replaces config.toml; a missing file is created 0600. */
export function writeSetup(file: string, changes: SetupChanges): { changed: boolean } {
  const { changed } = editConfigText(
    file,
    "fermix_core",
    (text) => {
      const after = applySetup(text, changes, file);
      return after === text ? null : after;
    },
    (config) => setupApplied(config, changes),
  );
  return { changed };
}

/** Sets one key of a config.toml table in place (comments and layout kept); unchanged text when it already holds. */
export function setKey(
  text: string,
  table: string,
  key: string,
  value: string | boolean | number,
  file: string,
): string {
  const doc = tableDoc(text, table);
  if (doc.definedElsewhere) {
    throw ConfigEditFailed(
      `${file}: [${table}] is also written as "${doc.definedElsewhere}" (dotted keys or an inline table); edit it by hand, or move it under a [${table}] header.`,
      { file },
    );
  }
  const current = doc.statement(key);
  if (current && sameValue(current.value, value)) return text;
  const literal = typeof value === "string" ? tomlString(value) : String(value);
  return doc.setValue(key, literal, "end");
}

/** An id written as a number (owner_user_id = 42) is the same answer as "42". */
function sameValue(literal: string, value: string | boolean | number): boolean {
  try {
    const parsed = (parse(`v = ${literal}`) as { v: unknown }).v;
    return parsed === value || (typeof value === "string" && typeof parsed === "number" && String(parsed) === value);
  } catch {
    return false;
  }
}

export function notApplied(file: string) {
  return ConfigEditFailed(`${file}: the setup edit did not take effect; the file was left unchanged.`, { file });
}
