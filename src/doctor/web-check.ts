import { DEFAULT_WEB_PORT } from "../config/sections/web.ts";
import { portFree } from "./channels-check.ts";
import { type DoctorRow, defineCheck, skippedForConfig } from "./check.ts";

/**
 * The setup page: with a daemon, its listener's state (always 127.0.0.1: the server has no other bind); without
 * one, whether the port is free for it. A port in use is a failed row with the fix, never a failed daemon.
 */
export const webCheck = defineCheck({
  id: "web",
  async run(ctx) {
    if (!ctx.config) return [skippedForConfig("web", "web")];
    const row = (status: DoctorRow["status"], detail: string, fix?: string): DoctorRow => ({
      id: "web",
      title: "web",
      status,
      detail,
      ...(fix ? { fix } : {}),
    });
    const block = ctx.config.fermix_web;
    if (block?.enabled === false) return [row("ok", "off ([fermix_web] enabled = false)")];
    const port = block?.port ?? DEFAULT_WEB_PORT;
    const freePort = "set [fermix_web] port to a free port in config.toml, then fermix restart";
    const web = await ctx
      .daemonStatus()
      .then((status) => status.web)
      .catch(() => undefined);
    if (web?.state === "listening") {
      return [
        row(
          "ok",
          `listening on http://127.0.0.1:${web.port} (bound to loopback only); open it with fermix setup --web`,
        ),
      ];
    }
    if (web?.state === "failed") return [row("fail", `not listening: ${web.reason ?? `port ${web.port}`}`, freePort)];
    if (web) {
      return [
        row(
          "warn",
          "the running daemon does not serve the page (config.toml changed since it started)",
          "fermix restart",
        ),
      ];
    }
    if (await portFree(port)) {
      return [
        row("ok", `port ${port} on 127.0.0.1 is free; the daemon serves the page there (loopback only) when it runs`),
      ];
    }
    return [row("fail", `port ${port} on 127.0.0.1 is in use by another program`, freePort)];
  },
});
