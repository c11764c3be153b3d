import { html } from "../html.ts";
import { definePage } from "../page.ts";
import { doctorTable } from "./doctor-rows.ts";

/** `fermix doctor` in the browser: every row, each warn or fail with its fix. Reloading runs the checks again. */
export const doctorPage = definePage({
  path: "/doctor",
  title: "Doctor",
  async render(deps) {
    const report = await deps.doctor();
    const { ok, warn, fail } = report.counts;
    return html`<p>${ok} ok, ${warn} warnings, ${fail} failed (fermix ${report.version}). Reload the page to check again.</p>
${doctorTable(report.rows)}`;
  },
});
