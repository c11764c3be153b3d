import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { defineCheck } from "./check.ts";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Below this the memory database, logs and plugin installs start failing; below WARN it is close. */
export const DISK_FAIL_BYTES = 100 * MiB;
export const DISK_WARN_BYTES = 1 * GiB;

/** Free space where FERMIX_HOME lives (or would be created), as an unprivileged user can use it. */
export const diskCheck = defineCheck({
  id: "disk",
  async run(ctx) {
    let dir = ctx.paths.home;
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
    const fs = ctx.statfs(dir);
    const free = fs.bavail * fs.bsize;
    const home = ctx.display(ctx.paths.home);
    const detail = `${formatBytes(free)} free for ${home}`;
    const fix = `free space on the disk holding ${home} (old logs in ${ctx.display(ctx.paths.logs)}, fermix plugins gc)`;
    if (free < DISK_FAIL_BYTES) return [{ id: "disk", title: "disk", status: "fail", detail, fix }];
    if (free < DISK_WARN_BYTES) return [{ id: "disk", title: "disk", status: "warn", detail, fix }];
    return [{ id: "disk", title: "disk", status: "ok", detail }];
  },
});

export function formatBytes(n: number): string {
  if (n >= GiB) return `${(n / GiB).toFixed(1)} GiB`;
  if (n >= MiB) return `${(n / MiB).toFixed(0)} MiB`;
  return `${Math.max(0, Math.round(n / 1024))} KiB`;
}
