import type { DoctorRow } from "../../doctor/check.ts";
import { type Html, html } from "../html.ts";

/** Doctor rows as a table: status, what, detail, and the fix for a warn or fail. */
export function doctorTable(rows: readonly DoctorRow[]): Html {
  return html`<table><thead><tr><th></th><th>Check</th><th>Detail</th><th>Fix</th></tr></thead><tbody>${rows.map(
    (row) =>
      html`<tr><td class="${row.status}">${row.status}</td><td>${row.title}</td><td>${row.detail}</td><td>${
        row.fix ? html`<code>${row.fix}</code>` : ""
      }</td></tr>`,
  )}</tbody></table>`;
}
