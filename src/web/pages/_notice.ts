import { type Html, html } from "../html.ts";
import type { RenderContext } from "../page.ts";

/** The last post's notice or error, at the top of a page with forms. */
export function noticeOf(ctx: RenderContext): Html {
  if (ctx.error) return html`<p class="fail" role="alert">${ctx.error}</p>`;
  if (ctx.notice) return html`<p class="ok" role="status">${ctx.notice}</p>`;
  return html``;
}

/** A refusal as the page's error, with any value the form carried scrubbed from it (a secret is never echoed). */
export function refusal(err: unknown, secrets: readonly string[]): { ok: false; error: string } {
  let message = (err as Error)?.message ?? String(err);
  for (const secret of secrets) if (secret) message = message.replaceAll(secret, "[redacted]");
  return { ok: false, error: message.split("\n")[0] ?? message };
}
