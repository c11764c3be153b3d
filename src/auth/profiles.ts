import type { Env } from "../config/env.ts";
import { defineError } from "../error.ts";

/**
 * The three chat-provider sign-ins fermix knows, by their auth.json profile id, with the public OAuth clients
 * the providers registered for command-line tools (no client secret: PKCE stands in for one). The endpoints
 * are fixed here; FERMIX_TEST_OAUTH_BASE_URL replaces their origin for tests, and only with a loopback address, so
 * a variable in a shell profile can never send a refresh token off this machine.
 */
export type ProfileId = "openai_codex" | "anthropic_oauth" | "xai_oauth";
/** The names `fermix auth --provider` takes. */
export type AuthProviderName = "codex" | "anthropic" | "xai";

export const UnknownAuthProvider = defineError<{ provider: string }>("unknown_provider");

export type ProfileSpec = {
  id: ProfileId;
  provider: AuthProviderName;
  /** What people call it in sentences. */
  label: string;
  /** The config block whose auth_mode a login turns to "oauth" (codex has its own provider block). */
  configBlock: "openai_codex" | "anthropic" | "xai";
  clientId: string;
  tokenUrl: string;
  /** Absent: no browser sign-in (Anthropic: setup token or a Claude Code import). */
  authorize?: {
    url: string;
    scopes: string;
    /** The loopback redirect the registered client expects; --port may move it. */
    redirectHost: "localhost" | "127.0.0.1";
    redirectPort: number;
    redirectPath: string;
    extra: Record<string, string>;
    /** xAI wants a nonce on the authorize request and the code_challenge again on the exchange. */
    nonce?: boolean;
    echoChallenge?: boolean;
  };
  /** How the token endpoint wants its body. */
  bodyEncoding: "form" | "json";
  /** The stored auth_mode of a browser sign-in. */
  storedMode: string;
};

const SPECS: Record<ProfileId, ProfileSpec> = {
  openai_codex: {
    id: "openai_codex",
    provider: "codex",
    label: "ChatGPT (Codex)",
    configBlock: "openai_codex",
    clientId: "app_EMoamEEZ73f0CkXaXp7hrann",
    tokenUrl: "https://auth.openai.com/oauth/token",
    authorize: {
      url: "https://auth.openai.com/oauth/authorize",
      scopes: "openid profile email offline_access",
      redirectHost: "localhost",
      redirectPort: 1455,
      redirectPath: "/auth/callback",
      extra: { codex_cli_simplified_flow: "true", id_token_add_organizations: "true" },
    },
    bodyEncoding: "form",
    storedMode: "oauth_pkce",
  },
  anthropic_oauth: {
    id: "anthropic_oauth",
    provider: "anthropic",
    label: "Claude",
    configBlock: "anthropic",
    clientId: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
    tokenUrl: "https://console.anthropic.com/v1/oauth/token",
    // Claude's token endpoint takes JSON (what Claude Code sends).
    bodyEncoding: "json",
    storedMode: "claude_code_import",
  },
  xai_oauth: {
    id: "xai_oauth",
    provider: "xai",
    label: "Grok",
    configBlock: "xai",
    clientId: "b1a00492-073a-47ea-816f-4c329264a828",
    tokenUrl: "https://auth.x.ai/oauth2/token",
    authorize: {
      url: "https://auth.x.ai/oauth2/authorize",
      scopes: "openid profile email offline_access grok-cli:access api:access",
      redirectHost: "127.0.0.1",
      redirectPort: 56121,
      redirectPath: "/callback",
      extra: { plan: "generic" },
      nonce: true,
      echoChallenge: true,
    },
    bodyEncoding: "form",
    storedMode: "oauth_pkce",
  },
};

export const PROFILE_IDS: readonly ProfileId[] = ["openai_codex", "anthropic_oauth", "xai_oauth"];

const BY_PROVIDER: Record<AuthProviderName, ProfileId> = {
  codex: "openai_codex",
  anthropic: "anthropic_oauth",
  xai: "xai_oauth",
};

/** The test override of every endpoint's origin: `<base>/<provider>/authorize` and `<base>/<provider>/token`. */
export const OAUTH_BASE_ENV = "FERMIX_TEST_OAUTH_BASE_URL";

export function profileFor(provider: string): ProfileId {
  const id = Object.hasOwn(BY_PROVIDER, provider) ? BY_PROVIDER[provider as AuthProviderName] : undefined;
  if (!id) {
    throw UnknownAuthProvider(`unknown provider "${provider}"; expected codex, anthropic, or xai`, { provider });
  }
  return id;
}

/** The profile's spec, its endpoints moved to FERMIX_TEST_OAUTH_BASE_URL when that names a loopback origin. */
export function profileSpec(id: ProfileId, env: Env = {}): ProfileSpec {
  const spec = SPECS[id];
  const base = loopbackBase(env[OAUTH_BASE_ENV]);
  if (!base) return spec;
  return {
    ...spec,
    tokenUrl: `${base}/${spec.provider}/token`,
    authorize: spec.authorize && { ...spec.authorize, url: `${base}/${spec.provider}/authorize` },
  };
}

export const OAuthBaseRefused = defineError<{ variable: string }>("oauth_base_refused");

function loopbackBase(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw OAuthBaseRefused(`${OAUTH_BASE_ENV} is not a URL; unset it`, { variable: OAUTH_BASE_ENV });
  }
  if (url.protocol !== "http:" || !["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    throw OAuthBaseRefused(`${OAUTH_BASE_ENV} may only name a loopback http address (it exists for tests); unset it`, {
      variable: OAUTH_BASE_ENV,
    });
  }
  return url.origin + url.pathname.replace(/\/+$/, "");
}

/** The sentence every "sign in again" error ends with. */
export function loginHint(id: ProfileId): string {
  return `run \`fermix auth login --provider ${SPECS[id].provider}\``;
}
