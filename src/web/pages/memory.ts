import type { ReviewReport } from "../../memory/review-contract.ts";
import { html } from "../html.ts";
import { definePage } from "../page.ts";
import { csrfField } from "./_fields.ts";
import { noticeOf, refusal } from "./_notice.ts";

const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/** What `fermix memory review --now` prints, on one line. */
function reportLine(report: Exclude<ReviewReport, { status: "failed" }>): string {
  if (report.status === "skipped") return `memory review skipped: ${report.reason}`;
  const files = report.files.map((f) => `${f.name} (rev_${f.revisionId})`);
  return `memory review: ${report.facts} facts reviewed; ${report.replaced.length} replaced, ${report.retired.length} retired; ${
    files.length ? `wrote ${files.join(", ")}` : "USER.md and MEMORY.md were already up to date"
  }`;
}

/**
 * The memory review and the profile files' revisions (`fermix memory review --now`, `revisions`, `restore`): Review
 * now runs the review the daemon runs every ~24 h (it needs a provider; a failure is shown); Restore brings a file
 * back to a revision, itself a new revision, so it can be undone.
 */
export const memoryPage = definePage({
  path: "/setup/memory",
  title: "Memory",
  async render(deps, ctx) {
    const revisions = await deps.memory.revisions();
    const restore = (id: number) =>
      html`<form method="post" action="/setup/memory">${csrfField(ctx.csrf)}<input type="hidden" name="action" value="restore"><input type="hidden" name="id" value="${id}"><button>Restore</button></form>`;
    return html`${noticeOf(ctx)}<p>The memory review consolidates the facts fermix keeps about you and rebuilds USER.md and
MEMORY.md from them. It runs about once a day; run it now with the button (it asks the primary provider).</p>
<form method="post" action="/setup/memory">${csrfField(ctx.csrf)}<input type="hidden" name="action" value="review"><button>Review now</button></form>
<h2>Revisions</h2>${
      revisions.length
        ? html`<table><thead><tr><th>ID</th><th>File</th><th>Revision</th><th>When (UTC)</th><th>Reason</th><th></th></tr></thead><tbody>${revisions.map(
            (r) =>
              html`<tr><td>rev_${r.id}</td><td>${r.name}</td><td>${r.revision}</td><td>${minute(r.createdAt)}</td><td>${r.reason}</td><td>${
                r.current ? html`<strong>current</strong>` : restore(r.id)
              }</td></tr>`,
          )}</tbody></table>`
        : html`<p>No revisions recorded yet (the first memory review records them).</p>`
    }`;
  },
  async submit(form, deps) {
    const action = form.get("action");
    try {
      if (action === "review") {
        const report = await deps.memory.reviewNow();
        if (report.status === "failed") return { ok: false, error: `memory review: ${report.error}` };
        return { ok: true, notice: reportLine(report) };
      }
      if (action === "restore") {
        const raw = form.get("id") ?? "";
        if (!/^[1-9][0-9]{0,15}$/.test(raw)) return { ok: false, error: `id: "${raw}" is not a revision id` };
        const r = await deps.memory.restore(Number(raw));
        return { ok: true, notice: `restored ${r.name} (now revision ${r.revision}, rev_${r.id})` };
      }
      return { ok: false, error: "unknown action" };
    } catch (err) {
      return refusal(err, []);
    }
  },
});
