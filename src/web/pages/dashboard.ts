import { redact } from "../../observability/redact.ts";
import type { Status } from "../../protocol/schemas.ts";
import { type Html, html } from "../html.ts";
import { definePage, type RunSummary } from "../page.ts";
import type { UsageSpend } from "../usage-deps.ts";
import { doctorTable } from "./doctor-rows.ts";
import { spendLines } from "./usage.ts";

/** The home page: the daemon, its providers, what needs attention (doctor's warn/fail rows), spend and recent job runs. */
export const dashboardPage = definePage({
  path: "/",
  title: "Home",
  async render(deps) {
    const [status, report, runs, spend] = await Promise.all([
      deps.status().catch(() => undefined),
      deps.doctor(),
      deps.recentRuns(10).catch(() => [] as RunSummary[]),
      // A ledger that cannot be read costs the home page one line, not the page.
      deps.usage?.spend().catch(() => undefined),
    ]);
    const attention = report.rows.filter((row) => row.status !== "ok");
    return html`<section><h2>Daemon</h2>${daemon(status)}</section>
<section><h2>Providers</h2>${providers(status)}</section>
<section><h2>Needs attention</h2>${
      attention.length ? doctorTable(attention, { links: true }) : html`<p class="ok">Nothing: every check passed.</p>`
    }<p><a href="/doctor">All doctor checks</a></p></section>
${deps.usage ? spendSection(spend) : ""}
<section><h2>Recent job runs</h2>${recentRuns(runs)}</section>`;
  },
});

/** Today's spend against the budget (`[fermix_core.budget]`), as `/usage` tells it. */
function spendSection(spend: UsageSpend | undefined): Html {
  return html`<section><h2>Spend</h2>${
    spend ? spendLines(spend) : html`<p class="warn">Unknown: the usage ledger could not be read.</p>`
  }<p><a href="/usage">Usage per day</a></p></section>`;
}

function daemon(status: Status | undefined): Html {
  if (!status) return html`<p class="fail">The daemon did not answer. Run <code>fermix status</code>.</p>`;
  const minutes = Math.floor(status.uptime_ms / 60_000);
  return html`<p class="ok">Running: fermix ${status.version}, pid ${status.pid}, up ${minutes} min, ${status.active_turns} turns in flight.</p>`;
}

function providers(status: Status | undefined): Html {
  if (!status) return html`<p>Unknown while the daemon does not answer.</p>`;
  if (!status.primary_provider) {
    return html`<p class="fail">No provider is configured: <a href="/setup/providers">set one up</a> (or run <code>fermix setup</code>).</p>`;
  }
  const fallbacks = status.fallback_providers.length ? status.fallback_providers.join(", ") : "none";
  return html`<p>Primary: <strong>${status.primary_provider}</strong>. Fallbacks: ${fallbacks}. <a href="/setup/providers">Change</a></p>`;
}

function recentRuns(runs: readonly RunSummary[]): Html {
  if (!runs.length) return html`<p>No scheduled job has run yet.</p>`;
  return html`<table><thead><tr><th>When</th><th>Job</th><th>Status</th><th>Error</th></tr></thead><tbody>${runs.map(
    (run) =>
      html`<tr><td>${new Date(run.at).toISOString()}</td><td>${run.job}</td><td class="${
        run.status === "ok" ? "ok" : run.status === "error" || run.status === "timeout" ? "fail" : "warn"
      }">${run.status}</td><td>${run.error ? redact(run.error, []) : ""}</td></tr>`,
  )}</tbody></table><p>Details: <code>fermix jobs runs JOB</code>.</p>`;
}
