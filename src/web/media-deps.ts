import { dirname } from "node:path";
import { createAuthStore } from "../auth/auth-file.ts";
import { fermixPaths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { GOOGLE_IMAGE_KEY_SLOT, providerKeySlot } from "../config/secret-slots.ts";
import type { IMAGE_BACKENDS } from "../config/sections/tools.ts";
import { findProvider } from "../providers/descriptors.ts";
import type { ConfigWrites, SecretWrite } from "./config-writes.ts";

export type ImageBackend = (typeof IMAGE_BACKENDS)[number];

/** Each image backend's default model (the facts of the earlier product's generate_image). */
export const IMAGE_DEFAULT_MODELS: Record<ImageBackend, string> = {
  openai: "gpt-image-2",
  xai: "grok-imagine-image-quality",
  google: "gemini-3.1-flash-image",
  openai_codex: "gpt-5.6-terra",
};

export type MediaView = {
  backend?: ImageBackend;
  model?: string;
  /**
   * Whether config.toml gives each backend's key: openai and xai share their chat provider's api_key; for
   * openai_codex, whether auth.json holds a usable ChatGPT sign-in (it has no key).
   */
  keys: Record<ImageBackend, boolean>;
};

export type MediaSave = { backend: ImageBackend; model?: string; apiKey?: string };

/** The Media card: [fermix_core.tools.generate_image] and the key of the backend it names. */
export type MediaWeb = { view(): Promise<MediaView>; save(s: MediaSave): Promise<string> };

const TABLE = "fermix_core.tools.generate_image";

/** Where a backend's key lives: openai and xai use the chat provider's slot (never making it primary). */
export function imageKeyTarget(backend: ImageBackend, value: string): SecretWrite {
  if (backend === "openai_codex") {
    throw new Error("the ChatGPT plan (openai_codex) takes no key: sign in with `fermix auth login --provider codex`");
  }
  if (backend === "google") return { table: TABLE, key: "google_api_key", slot: GOOGLE_IMAGE_KEY_SLOT, value };
  return {
    table: `fermix_core.providers.${backend}`,
    key: "api_key",
    slot: providerKeySlot(findProvider(backend)!),
    value,
  };
}

function keysOf(config: Config, configFile: string): Record<ImageBackend, boolean> {
  const core = config.fermix_core;
  return {
    openai: core?.providers?.openai?.api_key !== undefined,
    xai: core?.providers?.xai?.api_key !== undefined,
    google: core?.tools?.generate_image?.google_api_key !== undefined,
    openai_codex: codexSignedIn(configFile),
  };
}

/** auth.json (beside config.toml) holds a ready openai_codex profile; a broken or unreadable file counts as not. */
function codexSignedIn(configFile: string): boolean {
  try {
    const entry = createAuthStore(fermixPaths(dirname(configFile)).auth).read("openai_codex");
    return entry !== undefined && (!entry.status || entry.status === "ready");
  } catch {
    return false;
  }
}

export function createMediaWeb(writes: ConfigWrites): MediaWeb {
  return {
    async view() {
      const config = await writes.config();
      const g = config.fermix_core?.tools?.generate_image;
      return {
        ...(g?.backend ? { backend: g.backend } : {}),
        ...(g?.model ? { model: g.model } : {}),
        keys: keysOf(config, writes.file),
      };
    },
    async save(s) {
      const current = (await writes.config()).fermix_core?.tools?.generate_image;
      const switching = current?.backend !== s.backend;
      // The form shows this model; sent back unchanged with another backend, it is the old backend's, not a choice.
      const shown = current?.model ?? IMAGE_DEFAULT_MODELS[current?.backend ?? "openai"];
      const model =
        switching && (!s.model || s.model === shown)
          ? IMAGE_DEFAULT_MODELS[s.backend]
          : (s.model ?? current?.model ?? IMAGE_DEFAULT_MODELS[s.backend]);
      const { changed, stored } = await writes.apply(
        TABLE,
        [
          { table: TABLE, key: "backend", value: s.backend },
          { table: TABLE, key: "model", value: model },
        ],
        s.apiKey ? imageKeyTarget(s.backend, s.apiKey) : undefined,
        (c) => {
          const g = c.fermix_core?.tools?.generate_image;
          return g?.backend === s.backend && g.model === model;
        },
      );
      const parts = [`image backend ${s.backend} (${model}) saved`];
      if (!changed && !stored) return "media: nothing changed";
      if (stored && s.backend !== "google") {
        parts.push(
          `the ${findProvider(s.backend)!.label} key is stored (the same key its chat uses; fermix restart for chat to pick it up)`,
        );
      } else if (stored) parts.push("the Google key is stored");
      if (s.backend === "openai_codex" && !codexSignedIn(writes.file)) {
        parts.push("not signed in yet: run fermix auth login --provider codex");
      }
      return `media: ${parts.join("; ")}`;
    },
  };
}
