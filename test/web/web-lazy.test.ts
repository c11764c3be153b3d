/**
 * An idle daemon carries only the setup page's listener (issue 31): the pages, their deps and the session store load
 * on the first request. Run from source under Bun with the preload that lists the modules a process evaluated (a
 * compiled binary bundles every module; its lazy chunks follow the same imports).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

const ROOT = join(import.meta.dir, "../..");
const SITE = ["src/web/daemon-site.ts", "src/web/server.ts", "src/web/pages.ts"];
const defer = cleanupAfterEach();

/** The project modules a daemon evaluated from its start to its stop, `visit` run while it listened. */
async function daemonLoads(visit: (origin: string) => Promise<void>): Promise<string[]> {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const port = await freePort();
  h.writeConfig(`[fermix_web]\nport = ${port}\n`);
  const log = join(h.userHome, "loaded.txt");
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, LOADED_MODULES_LOG: log };
  const preload = join(ROOT, "test/fixture/loaded-modules.ts");
  const daemon = await startFermixDaemon(env, [process.execPath, "--preload", preload, join(ROOT, "src/main.ts")]);
  defer(() => daemon.stop());
  await visit(`http://127.0.0.1:${port}`);
  expect(await daemon.stop()).toBe(0);
  const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return lines.filter((l) => l.startsWith(`${ROOT}/src/`)).map((l) => l.slice(ROOT.length + 1));
}

test("the daemon listens for the setup page without loading it; the first request loads it", async () => {
  const idle = await daemonLoads(async () => {});
  expect(idle).toContain("src/web/daemon-web.ts");
  expect(SITE.filter((s) => idle.includes(s))).toEqual([]);

  const browsed = await daemonLoads(async (origin) => {
    const r = await fetch(`${origin}/style.css`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/css");
  });
  expect(SITE.filter((s) => browsed.includes(s))).toEqual(SITE);
});
