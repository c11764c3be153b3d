import { parseConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { ProviderBlock } from "../config/sections/providers.ts";
import { setKey } from "../setup/config-edit.ts";
import type { ProfileId } from "./profiles.ts";

/**
 * A stored token is inert until config says to use it: signing in to Claude or Grok sets
 * `[fermix_core.providers.<p>] auth_mode = "oauth"`, signing out puts back "api_key". A Codex sign-in adds an
 * empty `[fermix_core.providers.openai_codex]` block when there is none, so the provider is configured (as a
 * fallback: a sign-in never changes which provider is primary). Edits keep comments and layout.
 */
export type ModeChange = { file: string; changed: boolean; table: string };

export function applyLoginToConfig(file: string, profile: ProfileId): ModeChange {
  if (profile === "openai_codex") return addCodexBlock(file);
  return setAuthMode(file, profile === "anthropic_oauth" ? "anthropic" : "xai", "oauth");
}

/** Logout: back to the API key (only where the block says oauth now; a missing block stays missing). */
export function applyLogoutToConfig(file: string, profile: ProfileId): ModeChange {
  const block = profile === "anthropic_oauth" ? "anthropic" : profile === "xai_oauth" ? "xai" : undefined;
  if (!block) return { file, changed: false, table: "fermix_core.providers.openai_codex" };
  return setAuthMode(file, block, "api_key", true);
}

function setAuthMode(file: string, block: "anthropic" | "xai", mode: "oauth" | "api_key", onlyIfOauth = false) {
  const table = `fermix_core.providers.${block}`;
  const providerBlock = (config: ReturnType<typeof parseConfig>) =>
    (config.fermix_core?.providers as Record<string, ProviderBlock | undefined> | undefined)?.[block];
  const { changed } = editConfigText(
    file,
    table,
    (text) => {
      const current = providerBlock(parseConfig(text, file));
      if (onlyIfOauth && current?.auth_mode !== "oauth") return null;
      const after = setKey(text, table, "auth_mode", mode, file);
      return after === text ? null : after;
    },
    (config) => providerBlock(config)?.auth_mode === mode,
  );
  return { file, changed, table };
}

function addCodexBlock(file: string): ModeChange {
  const table = "fermix_core.providers.openai_codex";
  const present = (config: ReturnType<typeof parseConfig>) =>
    (config.fermix_core?.providers as Record<string, unknown> | undefined)?.openai_codex !== undefined;
  const { changed } = editConfigText(
    file,
    table,
    (text) => {
      if (present(parseConfig(text, file))) return null;
      const nl = text.includes("\r\n") ? "\r\n" : "\n";
      const gap = text === "" ? "" : text.endsWith("\n") ? nl : nl + nl;
      return `${text}${gap}# Signed in with \`fermix auth login --provider codex\` (tokens in auth.json).${nl}[${table}]${nl}`;
    },
    present,
  );
  return { file, changed, table };
}
