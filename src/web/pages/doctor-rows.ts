import type { DoctorRow } from "../../doctor/check.ts";
import { type Html, html } from "../html.ts";

/**
 * Which setup page fixes a doctor row, by the row's id (`providers.openai`, `channels.telegram`, `plugins.github`…):
 * the first entry whose prefix matches. A row no page can fix (config, disk, service, the daemon) goes to /doctor,
 * where its CLI fix is shown.
 */
const FIXED_ON: ReadonlyArray<{ prefix: string; page: string }> = [
  { prefix: "providers", page: "/setup/providers" },
  { prefix: "channels", page: "/setup/channels" },
  { prefix: "plugins", page: "/setup/plugins" },
  { prefix: "catalog", page: "/setup/plugins" },
  { prefix: "computer-use", page: "/setup/plugins" },
  { prefix: "transcription", page: "/setup/voice" },
  { prefix: "voice", page: "/setup/voice" },
  { prefix: "web_search", page: "/setup/search" },
  { prefix: "search", page: "/setup/search" },
  { prefix: "image", page: "/setup/media" },
  { prefix: "media", page: "/setup/media" },
  { prefix: "sandbox", page: "/setup/sandbox" },
  { prefix: "harness", page: "/setup/coding" },
  { prefix: "coding", page: "/setup/coding" },
  { prefix: "memory", page: "/setup/memory" },
  { prefix: "personalization", page: "/setup/personalization" },
];

/** The page that fixes `row` (a provider's own row opens its form), or /doctor when no page does. */
export function fixPage(row: Pick<DoctorRow, "id">): string {
  const hit = FIXED_ON.find((f) => row.id === f.prefix || row.id.startsWith(`${f.prefix}.`));
  if (!hit) return "/doctor";
  const sub = row.id.slice(hit.prefix.length + 1);
  if (hit.prefix === "providers" && /^[a-z_]+$/.test(sub)) return `${hit.page}?provider=${sub}`;
  return hit.page;
}

/** Doctor rows as a table: status, what, detail, and the fix for a warn or fail; `links` adds where to fix it. */
export function doctorTable(rows: readonly DoctorRow[], opts: { links?: boolean } = {}): Html {
  return html`<table><thead><tr><th></th><th>Check</th><th>Detail</th><th>Fix</th>${
    opts.links ? html`<th></th>` : ""
  }</tr></thead><tbody>${rows.map(
    (row) =>
      html`<tr><td class="${row.status}">${row.status}</td><td>${row.title}</td><td>${row.detail}</td><td>${
        row.fix ? html`<code>${row.fix}</code>` : ""
      }</td>${opts.links ? html`<td>${fixLink(row)}</td>` : ""}</tr>`,
  )}</tbody></table>`;
}

function fixLink(row: DoctorRow): Html {
  const page = fixPage(row);
  return page === "/doctor"
    ? html`<a href="/doctor">details</a>`
    : html`<a href="${page}" data-fix="${row.id}">fix it</a>`;
}
