import { defineError } from "../../error.ts";

/**
 * What an `ok:false` means for whoever sent the call (channels facts §6): the chat is gone or closed, the token is
 * not valid, the app lacks a scope or a membership, or Slack refused for its own reason. A job delivery reads this
 * to decide whether trying again could help (it cannot, for all four).
 */
export type SlackErrorKind = "invalid_destination" | "authentication" | "authorization" | "remote_rejected";

/** Slack answered a Web API call with `ok: false` (HTTP 200), or an HTTP error without one. */
export const SlackApiError = defineError<{
  method: string;
  /** Slack's error code (`channel_not_found`, `invalid_auth`…), or `http_<status>`. */
  error: string;
  kind: SlackErrorKind;
}>("slack_api_error");

/** HTTP 429: the method's rate limit; `retryAfter` is Slack's Retry-After, in seconds. */
export const SlackRateLimited = defineError<{ method: string; retryAfter: number }>("slack_rate_limited");

/** No answer: the connection failed or the deadline passed. */
export const SlackUnreachable = defineError<{ method: string; transient: true }>("slack_unreachable");

const KINDS: Record<string, SlackErrorKind> = {
  channel_not_found: "invalid_destination",
  is_archived: "invalid_destination",
  invalid_auth: "authentication",
  token_revoked: "authentication",
  token_expired: "authentication",
  account_inactive: "authentication",
  not_authed: "authentication",
  not_allowed_token_type: "authentication",
  missing_scope: "authorization",
  not_in_channel: "authorization",
  restricted_action: "authorization",
};

export function errorKind(error: string): SlackErrorKind {
  return KINDS[error] ?? "remote_rejected";
}

/** What the owner can do about an error, in a sentence (the doctor row's fix, a failed start's reason). */
export function errorFix(error: string, token: "bot" | "app" = "bot"): string {
  switch (errorKind(error)) {
    case "authentication":
      if (error === "not_allowed_token_type") {
        return "bot_token must be the Bot User OAuth Token (xoxb-…) from OAuth & Permissions, and app_token an app-level token (xapp-…) with connections:write from Basic Information; run `fermix setup --channel slack`";
      }
      return token === "app"
        ? "the app-level token was revoked or mistyped: generate one with the connections:write scope under Basic Information → App-Level Tokens and run `fermix setup --channel slack`"
        : "the token was revoked or mistyped: copy the current Bot User OAuth Token (xoxb-…) from your app's OAuth & Permissions page and run `fermix setup --channel slack`";
    case "authorization":
      return error === "not_in_channel"
        ? "invite the app to that channel (/invite @your-app) or mention it there"
        : "add the missing bot scope under OAuth & Permissions (app_mentions:read, chat:write, im:history, im:read, files:read, files:write, reactions:write), then reinstall the app to the workspace";
    case "invalid_destination":
      return "the channel does not exist for this app, or was archived; check the channel id";
    default:
      return "see Slack's status page (https://slack-status.com) and try again";
  }
}
