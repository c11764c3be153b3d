import type { SandboxStatus } from "./types.ts";

/** The sandbox as `fermix sandbox` and the /sandbox command show it; each adds its own lines after these. */
export function sandboxStatusLines(status: SandboxStatus): string[] {
  const protection =
    status.isolation === "none"
      ? "path checks only (install bubblewrap for process isolation of shell commands)"
      : `${status.isolation} isolates shell commands; path checks on every tool`;
  return [
    `sandbox: ${status.mode} mode`,
    `protection: ${protection}`,
    `workspace: ${status.workspaceRoot}`,
    `granted roots: ${status.allowedRoots.length ? status.allowedRoots.join(", ") : "none"}`,
  ];
}
