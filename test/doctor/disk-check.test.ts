import { describe, expect, test } from "bun:test";
import { diskCheck } from "../../src/doctor/disk-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps, GiB } from "./_deps.ts";

const defer = cleanupAfterEach();
const MiB = 1024 * 1024;

async function disk(freeBytes: number) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const asked: string[] = [];
  const statfs = (path: string) => {
    asked.push(path);
    return { bsize: 4096, bavail: Math.floor(freeBytes / 4096) };
  };
  const { rows, ok } = await runDoctor(doctorDeps(h, { statfs }), [diskCheck]);
  return { row: rows[0]!, ok, asked, h };
}

describe("doctor: disk space for FERMIX_HOME", () => {
  test("plenty is ok; a FERMIX_HOME not created yet is measured at its nearest existing parent", async () => {
    const { row, asked, h } = await disk(20 * GiB);
    expect(row).toEqual({ id: "disk", title: "disk", status: "ok", detail: "20.0 GiB free for ~/h" });
    expect(asked).toEqual([h.userHome]);
  });

  test("under 1 GiB warns", async () => {
    const { row, ok } = await disk(600 * MiB);
    expect(ok).toBe(true);
    expect(row).toEqual({
      id: "disk",
      title: "disk",
      status: "warn",
      detail: "600 MiB free for ~/h",
      fix: "free space on the disk holding ~/h (old logs in ~/h/logs, fermix plugins gc)",
    });
  });

  test("under 100 MiB fails", async () => {
    const { row, ok } = await disk(40 * MiB);
    expect(ok).toBe(false);
    expect(row).toMatchObject({ status: "fail", detail: "40 MiB free for ~/h" });
  });
});
