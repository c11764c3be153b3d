/**
 * The x11 package inside a single-file executable: `bun build --compile` of a small probe that opens the driver,
 * takes a screenshot and types into a real xterm on Xvfb, run from a directory with no node_modules — what the
 * fermix binary does when computer use is on. Prints the timings it measured (screenshot, keystroke).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openX11Driver } from "../../../src/computer-use/x11/driver.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { hasXvfb, startXterm, startXvfb, waitUntil, XTERM_POINT } from "../../fixture/xvfb.ts";

const defer = cleanupAfterEach();

describe.skipIf(!hasXvfb)("the X11 driver in a compiled executable", () => {
  test("screenshots and types into xterm with no node_modules in reach", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-x11-compiled-"));
    const probe = join(dir, "probe");
    const build = Bun.spawnSync(
      [process.execPath, "build", "--compile", join(import.meta.dir, "_compiled-probe.ts"), "--outfile", probe],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(build.exitCode, build.stderr.toString()).toBe(0);

    const x = await startXvfb();
    defer(() => x.stop());
    const out = join(dir, "out.txt");
    const watcher = await openX11Driver(x.display);
    defer(() => watcher.close());
    await startXterm(x, watcher, `read line; printf '%s\\n' "$line" > ${out}.tmp && mv ${out}.tmp ${out}`);

    const run = Bun.spawnSync([probe, x.display, "from the binary\n", String(XTERM_POINT.x), String(XTERM_POINT.y)], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(run.exitCode, run.stderr.toString()).toBe(0);
    const report = JSON.parse(run.stdout.toString());
    expect([report.width, report.height]).toEqual([1280, 800]);
    expect(report.lit).toBeGreaterThan(0);
    expect(report.wmClass).toEqual(["xterm", "XTerm"]);
    await waitUntil(() => {
      try {
        return readFileSync(out, "utf8").length > 0;
      } catch {
        return false;
      }
    }, "the xterm's shell to write its file");
    expect(readFileSync(out, "utf8")).toBe("from the binary\n");
    console.log(`compiled x11 driver timings (ms): ${JSON.stringify(report.ms)}`);
  }, 60_000);
});
