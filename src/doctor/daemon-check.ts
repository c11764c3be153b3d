import { existsSync } from "node:fs";
import { isFermixError } from "../error.ts";
import { NOT_RUNNING } from "../protocol/client.ts";
import type { Status } from "../protocol/schemas.ts";
import { type DoctorRow, defineCheck } from "./check.ts";

/**
 * The daemon socket: is a daemon answering, and is it this binary's version? "Upgraded but behaviour
 * unchanged" is almost always a daemon that was never restarted.
 */
export const daemonCheck = defineCheck({
  id: "daemon",
  async run(ctx) {
    const row = (status: DoctorRow["status"], detail: string, fix?: string): DoctorRow[] => [
      { id: "daemon", title: "daemon", status, detail, ...(fix ? { fix } : {}) },
    ];
    const socket = ctx.display(ctx.paths.socket);
    if (!existsSync(ctx.paths.socket)) return row("warn", `not running (no socket at ${socket})`, "fermix start");
    let status: Status;
    try {
      status = await within(ctx.daemonStatus(), ctx.probeTimeoutMs);
    } catch (err) {
      if (isFermixError(err) && err.code === NOT_RUNNING) {
        return row("warn", `not running (nothing answers on ${socket})`, "fermix start");
      }
      if (err instanceof TimedOut) {
        return row("fail", `no answer on ${socket} within ${ctx.probeTimeoutMs / 1000} s`, "fermix restart");
      }
      return row("warn", `the daemon answered oddly: ${(err as Error).message}`, "fermix restart");
    }
    const running = `running (pid ${status.pid}, version ${status.version})`;
    if (status.version !== ctx.version) {
      return row(
        "warn",
        `${running}, but this binary is ${ctx.version}: the daemon still runs the old code`,
        "fermix restart",
      );
    }
    // A part of the daemon whose start failed (its own status object says why); a degraded one has its own row.
    const failed = (status.subsystems ?? []).filter((part) => part.state === "failed");
    if (failed.length) {
      const parts = failed.map((part) => `${part.name} (${part.detail ?? "failed"})`).join(", ");
      return row(
        "warn",
        `${running}, but these parts did not start: ${parts}`,
        "fix what it says, then fermix restart",
      );
    }
    // Errors nothing handled (the fault policy kept the daemon up): a warning, since each one is a bug or a peer
    // misbehaving, and the log has its stack.
    const errors = status.daemon_errors ?? 0;
    if (errors > 0) {
      return row(
        "warn",
        `${running}, but ${errors} unexpected error${errors === 1 ? "" : "s"} since it started (each logged, and traced as daemon_error)`,
        "fermix logs --level error (fermix restart if they keep coming)",
      );
    }
    return row("ok", running);
  },
});

class TimedOut extends Error {}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
