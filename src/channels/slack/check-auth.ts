import { errorFix, SlackApiError, SlackRateLimited, SlackUnreachable } from "./api-errors.ts";
import type { SlackApi } from "./web-api.ts";

export type SlackCheck = { ok: true; detail: string } | { ok: false; detail: string; fix: string };

/** Doctor's live check answers within this (each call also has the client's own deadline). */
export const CHECK_TIMEOUT_MS = 5000;

/**
 * Whether the tokens work, and which bot it is: auth.test with the bot token, and in Socket Mode
 * apps.connections.open with the app-level token (the URL it hands out is left unused and expires). A failure says
 * what to do in the facts' words. The signing secret cannot be tested from here: Slack never tells.
 */
export async function checkSlack(bot: SlackApi, app: SlackApi | undefined): Promise<SlackCheck> {
  let detail: string;
  try {
    const me = await within(bot.call<{ user?: string; user_id?: string; team?: string }>("auth.test"));
    detail = `bot @${me.user ?? "?"} (${me.user_id ?? "?"}) in ${me.team ?? "the workspace"}`;
  } catch (err) {
    return failure(err, "bot", bot);
  }
  if (!app) return { ok: true, detail: `${detail}; webhook mode: events come to POST /webhook/slack` };
  try {
    await within(app.call("apps.connections.open"));
  } catch (err) {
    return failure(err, "app", app);
  }
  return { ok: true, detail: `${detail}; the app-level token opens Socket Mode` };
}

function failure(err: unknown, token: "bot" | "app", api: SlackApi): SlackCheck {
  const which = token === "bot" ? "the bot token" : "the app-level token";
  if (SlackApiError.is(err)) {
    return { ok: false, detail: `Slack refused ${which}: ${err.data.error}`, fix: errorFix(err.data.error, token) };
  }
  if (SlackRateLimited.is(err)) {
    return { ok: false, detail: err.message, fix: `wait ${err.data.retryAfter} s and run fermix doctor again` };
  }
  if (SlackUnreachable.is(err)) {
    return { ok: false, detail: err.message, fix: "check the network (or api_base_url in [fermix_channels.slack])" };
  }
  return { ok: false, detail: api.redact(String((err as Error)?.message ?? err)), fix: "run `fermix doctor` again" };
}

function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          SlackUnreachable(`no answer from Slack within ${CHECK_TIMEOUT_MS / 1000} s`, {
            method: "auth.test",
            transient: true,
          }),
        ),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
