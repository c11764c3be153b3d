import type { Config } from "../../config/schema.ts";
import { GOOGLE_IMAGE_KEY_SLOT } from "../../config/secret-slots.ts";
import type { SecretRef } from "../../config/sections/secret-ref.ts";
import { IMAGE_SERVICES } from "./backends.ts";
import type { ImageBackend } from "./image-types.ts";
import { CODEX_LOGIN } from "./openai-codex.ts";

/** The facts' sentence when no backend is chosen. */
export const IMAGE_NOT_CONFIGURED =
  "Image generation is not configured. Run `fermix setup` and choose an image backend.";

/** [fermix_core.tools.generate_image] read for one call; the key stays a reference until the call needs it. */
export type ImageSettings = {
  service: ImageBackend;
  model: string;
  size?: string;
  baseUrl: string;
  /** The owner wrote this API root (generate_image's or the provider's base_url): trusted as written, loopback too. */
  ownerBaseUrl: boolean;
  /** The API key (openai, xai, google); openai_codex has none and signs in instead. */
  key?: { ref: SecretRef; slot: string; where: string };
  /** openai_codex: the ChatGPT plan's sign-in (auth.json's openai_codex profile) and the command that makes it. */
  signIn?: { login: string };
};

/**
 * The configured backend, or undefined. openai and xai reuse their chat provider's key and API root (the image
 * endpoints sit beside chat's); google has its own google_api_key (else GEMINI_API_KEY); openai_codex reuses the
 * chat provider's sign-in and API root.
 */
export function imageSettings(config: Config): ImageSettings | undefined {
  const section = config.fermix_core?.tools?.generate_image;
  if (!section?.backend) return undefined;
  const service = IMAGE_SERVICES[section.backend];
  const provider = section.backend === "google" ? undefined : config.fermix_core?.providers?.[section.backend];
  const configured = section.base_url ?? provider?.base_url;
  return {
    service,
    // openai_codex's router_model is the spec's name for the model that carries the image tool; `model` stays an alias.
    model:
      (section.backend === "openai_codex" ? (section.router_model ?? section.model) : section.model) ??
      service.defaultModel,
    ...(section.size ? { size: section.size } : {}),
    baseUrl: (configured ?? service.defaultBaseUrl).replace(/\/+$/, ""),
    ownerBaseUrl: configured !== undefined,
    ...(section.backend === "openai_codex"
      ? { signIn: { login: CODEX_LOGIN } }
      : {
          key: keyOf(
            section.backend,
            section.google_api_key,
            provider && "api_key" in provider ? provider.api_key : undefined,
          ),
        }),
  };
}

function keyOf(
  backend: "openai" | "xai" | "google",
  googleKey?: SecretRef,
  providerKey?: SecretRef,
): ImageSettings["key"] {
  if (backend === "google") {
    return {
      ref: googleKey ?? "$GEMINI_API_KEY",
      slot: GOOGLE_IMAGE_KEY_SLOT,
      where: "[fermix_core.tools.generate_image] google_api_key (or GEMINI_API_KEY)",
    };
  }
  const env = backend === "openai" ? "OPENAI_API_KEY" : "XAI_API_KEY";
  return {
    ref: providerKey ?? `$${env}`,
    slot: env,
    where: `[fermix_core.providers.${backend}] api_key (or ${env})`,
  };
}
