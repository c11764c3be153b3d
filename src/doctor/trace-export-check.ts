import { createOpikSender } from "../observability/export/opik.ts";
import { createOtlpSender } from "../observability/export/otlp.ts";
import { opikEnabled, planTraceExport } from "../observability/export/trace-export.ts";
import type { Status } from "../protocol/schemas.ts";
import { type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

const ID = "trace-export";
const TITLE = "trace export";

type Live = NonNullable<Status["trace_export"]>;

/**
 * Opik / OTLP trace export: off, enabled (where to), or — with --full, after one probe of each endpoint — ready,
 * or the error. A running daemon is asked what it exports (its environment is the service unit's, not this
 * shell's), so an export switched on only here, or failing there, is called out.
 */
export const traceExportCheck = defineCheck({
  id: ID,
  async run(ctx) {
    const row = (status: DoctorRow["status"], detail: string, fix?: string): DoctorRow => ({
      id: ID,
      title: TITLE,
      status,
      detail,
      ...(fix ? { fix } : {}),
    });
    const live = await ctx
      .daemonStatus()
      .then((s) => s.trace_export)
      .catch(() => undefined);
    const otlpOn = ctx.config?.fermix_core?.observability?.otlp_enabled === true;
    const here = opikEnabled(ctx.env) || otlpOn;
    if (!here) {
      if (live?.length) return [daemonRow(row, live, "the daemon exports")];
      if (!ctx.config && ctx.configError) return [skippedForConfig(ID, TITLE)];
      return [row("ok", "off (FERMIX_OPIK_ENABLED=1 or [fermix_core.observability] otlp_enabled = true turns it on)")];
    }
    let plan: ReturnType<typeof planTraceExport>;
    try {
      plan = planTraceExport(ctx.env, ctx.config ?? {}, {
        env: ctx.env,
        secretsDir: ctx.paths.secrets,
        profile: ctx.config?.fermix_core?.profile,
      });
    } catch (err) {
      return [row("fail", `not exporting: ${(err as Error).message}`, "fix the setting named, then fermix restart")];
    }
    const targets: { label: string; probe: (signal: AbortSignal) => Promise<void> }[] = [];
    if (plan.opik) {
      const { baseUrl, project, workspace } = plan.opik;
      targets.push({
        label: `Opik ${baseUrl} (project ${project}${workspace ? `, workspace ${workspace}` : ""})`,
        probe: createOpikSender(plan.opik, ctx.fetch).probe,
      });
    }
    if (plan.otlp) {
      targets.push({ label: `OTLP ${plan.otlp.url}`, probe: createOtlpSender(plan.otlp, ctx.fetch).probe });
    }
    const where = targets.map((t) => t.label).join("; ");
    if (live && !live.length) {
      return [
        row(
          "warn",
          `enabled here (${where}), but the running daemon exports nothing: it reads its own environment`,
          "fermix restart (for the background service: fermix service install, then fermix restart)",
        ),
      ];
    }
    if (live?.some((e) => e.failing)) return [daemonRow(row, live, `enabled: ${where}; the daemon`)];
    const seen = live ? `; the daemon has sent ${sentOf(live)}` : "";
    if (!ctx.full) return [row("ok", `enabled: ${where}${seen} (fermix doctor --full probes it)`)];
    const failures: string[] = [];
    await Promise.all(
      targets.map((t) =>
        t.probe(AbortSignal.timeout(ctx.probeTimeoutMs)).catch((err: Error) => {
          failures.push(`${t.label}: ${err.name === "TimeoutError" ? "no answer in time" : err.message}`);
        }),
      ),
    );
    if (failures.length) {
      return [
        row(
          "fail",
          `enabled but not reachable: ${failures.join("; ")}`,
          "check the endpoint, OPIK_API_KEY / OPIK_WORKSPACE or OTEL_EXPORTER_OTLP_HEADERS, and that the collector runs",
        ),
      ];
    }
    return [row("ok", `ready: ${where}${seen}`)];
  },
});

function sentOf(live: Live): string {
  return live.map((e) => `${e.sent} spans to ${e.name}${e.dropped ? ` (${e.dropped} dropped)` : ""}`).join(", ");
}

/** What the running daemon reports: its sends so far, or its last error while it is failing. */
function daemonRow(
  row: (status: DoctorRow["status"], detail: string, fix?: string) => DoctorRow,
  live: Live,
  lead: string,
): DoctorRow {
  const failing = live.filter((e) => e.failing);
  if (failing.length) {
    return row(
      "fail",
      `${lead}: ${failing.map((e) => `${e.name} to ${e.target} is failing: ${e.lastError ?? "unknown error"}`).join("; ")}`,
      "check the collector and its settings in the daemon's environment, then fermix restart",
    );
  }
  return row("ok", `${lead} to ${live.map((e) => e.target).join("; ")}; sent ${sentOf(live)}`);
}
