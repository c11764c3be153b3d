import { defineCheck } from "./check.ts";

/**
 * The launchd/systemd unit: installed, and still what this binary would write. A unit is a snapshot of
 * install-time settings (PATH, template), so an upgrade can leave it behind; setup rewrites a drifted one.
 */
export const serviceCheck = defineCheck({
  id: "service",
  async run(ctx) {
    const state = await ctx.serviceUnitState();
    const where = state.path ? ` at ${ctx.display(state.path)}` : "";
    if (!state.installed) {
      return [
        {
          id: "service",
          title: "service",
          status: "warn",
          detail: "no service unit installed: the daemon does not start at login or restart after a crash",
          fix: "fermix service install",
        },
      ];
    }
    if (state.drifted) {
      return [
        {
          id: "service",
          title: "service",
          status: "warn",
          detail: `the unit${where} no longer matches what this binary writes (PATH or template changed)`,
          fix: "fermix setup, or fermix service install",
        },
      ];
    }
    const drift = state.drifted === false ? ", up to date" : "";
    return [{ id: "service", title: "service", status: "ok", detail: `installed${where}${drift}` }];
  },
});
