import type { AuthStore, StoredProfile } from "./auth-file.ts";
import { PROFILE_IDS, type ProfileId, profileSpec } from "./profiles.ts";

/** One profile as `fermix auth status` and doctor tell it. Never carries a token. */
export type ProfileState = {
  profile: ProfileId;
  provider: string;
  state: "logged_in" | "expired" | "reconnect_needed" | "not_logged_in";
  auth_mode?: string;
  expires_at?: string;
  last_refresh?: string;
  email?: string;
  /** The provider's reason, when it refused the last refresh. */
  refused?: string;
  /** Present when it refreshes itself (a refresh token is stored). */
  refreshable?: boolean;
};

export function profileStates(store: AuthStore, now: number, only?: ProfileId): ProfileState[] {
  return (only ? [only] : PROFILE_IDS).map((id) => stateOf(id, store.read(id), now));
}

function stateOf(profile: ProfileId, entry: StoredProfile | undefined, now: number): ProfileState {
  const provider = profileSpec(profile).provider;
  if (!entry) return { profile, provider, state: "not_logged_in" };
  const out: ProfileState = {
    profile,
    provider,
    state: "logged_in",
    auth_mode: entry.auth_mode,
    refreshable: Boolean(entry.tokens.refresh_token),
  };
  if (entry.expires_at) out.expires_at = entry.expires_at;
  if (entry.last_refresh) out.last_refresh = entry.last_refresh;
  if (entry.account?.email) out.email = entry.account.email;
  if (entry.status && entry.status !== "ready") {
    out.state = "reconnect_needed";
    if (entry.refused) out.refused = entry.refused;
  } else if (!out.refreshable && entry.expires_at && Date.parse(entry.expires_at) <= now) {
    out.state = "expired";
  }
  return out;
}

/** "in 3 h 12 min", "in 45 s", "2 d ago": for people, the ISO time is printed beside it. */
export function relative(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const text =
    abs >= 86_400_000
      ? `${Math.floor(abs / 86_400_000)} d`
      : abs >= 3_600_000
        ? `${Math.floor(abs / 3_600_000)} h ${Math.floor((abs % 3_600_000) / 60_000)} min`
        : abs >= 60_000
          ? `${Math.floor(abs / 60_000)} min`
          : `${Math.floor(abs / 1000)} s`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** The one line each profile gets in `fermix auth status` and the doctor row. */
export function describe(s: ProfileState, now: number): string {
  switch (s.state) {
    case "not_logged_in":
      return "not logged in";
    case "reconnect_needed":
      return `Reconnect needed${s.refused ? ` (refresh refused: ${s.refused})` : ""}`;
    case "expired":
      return `expired ${relative(s.expires_at!, now)}, no refresh token`;
    default: {
      const who = s.email ? ` as ${s.email}` : "";
      if (!s.expires_at) return `logged in${who} (${s.auth_mode}, does not expire)`;
      const renews = s.refreshable ? ", refreshes itself" : "";
      return `logged in${who} (${s.auth_mode}), token expires ${relative(s.expires_at, now)}${renews}`;
    }
  }
}
