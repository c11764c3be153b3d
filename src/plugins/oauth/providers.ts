import { defineError } from "../../error.ts";

/**
 * The OAuth providers fermix knows, by the name a manifest's `auth.provider` uses. Each differs in small
 * ways the flow has to honour: how the client authenticates at the token endpoint, how the body is encoded,
 * and which extra authorize parameters get a refresh token at all. The endpoints are fixed here; tests pass
 * their own through `endpoints` (a deps value, never an env var, so no one can be talked into sending their
 * client secret elsewhere by a variable in a shell profile).
 */
export const UnknownOAuthProvider = defineError<{ provider: string; known: string[] }>("unknown_oauth_provider");

export type OAuthEndpoints = { authorizeUrl: string; tokenUrl: string };

export type OAuthProvider = OAuthEndpoints & {
  name: string;
  /** "basic": HTTP Basic with the client id and secret; "body": both as body fields. */
  clientAuth: "basic" | "body";
  /** Notion's token endpoint takes JSON; the others take a form body (RFC 6749 §4.1.3). */
  bodyEncoding: "form" | "json";
  /** Added to the authorize URL as is. */
  authorizeParams: Record<string, string>;
  /** Sent on token requests; GitHub answers form-encoded unless asked for JSON. */
  tokenHeaders: Record<string, string>;
};

const PROVIDERS: Record<string, Omit<OAuthProvider, "name">> = {
  github: {
    authorizeUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    clientAuth: "body",
    bodyEncoding: "form",
    authorizeParams: {},
    tokenHeaders: { Accept: "application/json" },
  },
  google: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    clientAuth: "body",
    bodyEncoding: "form",
    // Without both, Google hands out a refresh token only on the very first consent, so a reauthorize
    // after a lost auth.json would leave a token that dies within the hour.
    authorizeParams: { access_type: "offline", prompt: "consent" },
    tokenHeaders: {},
  },
  notion: {
    authorizeUrl: "https://api.notion.com/v1/oauth/authorize",
    tokenUrl: "https://api.notion.com/v1/oauth/token",
    clientAuth: "basic",
    bodyEncoding: "json",
    // Notion installs into a workspace on behalf of a user; "user" is the only owner it accepts here.
    authorizeParams: { owner: "user" },
    tokenHeaders: {},
  },
  x: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
    // X requires PKCE (which every login sends) and Basic auth for confidential clients.
    clientAuth: "basic",
    bodyEncoding: "form",
    authorizeParams: {},
    tokenHeaders: {},
  },
  // Slack's OAuth v2: oauth.v2.access answers HTTP 200 with `ok: false` and an `error` field on a refusal,
  // which the token request already reads as a refusal.
  slack: {
    authorizeUrl: "https://slack.com/oauth/v2/authorize",
    tokenUrl: "https://slack.com/api/oauth.v2.access",
    clientAuth: "body",
    bodyEncoding: "form",
    authorizeParams: {},
    tokenHeaders: {},
  },
};

export function knownOAuthProviders(): string[] {
  return Object.keys(PROVIDERS);
}

/** The provider `name`, with its endpoints replaced by `endpoints` where given (tests' fake server). */
export function oauthProvider(name: string, endpoints?: Partial<OAuthEndpoints>): OAuthProvider {
  const base = Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name] : undefined;
  if (!base) {
    const known = knownOAuthProviders();
    throw UnknownOAuthProvider(`fermix has no OAuth support for "${name}"; it knows ${known.join(", ")}`, {
      provider: name,
      known,
    });
  }
  return { name, ...base, ...pick(endpoints) };
}

function pick(endpoints: Partial<OAuthEndpoints> | undefined): Partial<OAuthEndpoints> {
  const out: Partial<OAuthEndpoints> = {};
  if (endpoints?.authorizeUrl) out.authorizeUrl = endpoints.authorizeUrl;
  if (endpoints?.tokenUrl) out.tokenUrl = endpoints.tokenUrl;
  return out;
}
