import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * Apply & restart through the compiled daemon: the POST (CSRF-checked) hands the restart to a detached
 * `fermix restart`, the browser lands on the waiting page, which refreshes until another daemon answers and then
 * redirects back; the session cookie still works afterwards (sessions are kept on disk, hashed).
 */

const defer = cleanupAfterEach();

describe("Apply & restart in the daemon", () => {
  test("POST /setup/restart: a new daemon pid, the same cookie works, the wait page redirects back", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const port = await freePort();
    h.writeConfig(["[fermix_web]", `port = ${port}`, `webhook_port = ${await freePort()}`, ""].join("\n"));
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    // Whatever daemon runs at the end (the restarted one is not our child) is stopped through the CLI.
    defer(() => runFermix(["stop"], { env }));
    const origin = `http://127.0.0.1:${port}`;
    const ask = async (path: string, init: RequestInit = {}) => {
      const r = await fetch(`${origin}${path}`, { redirect: "manual", ...init });
      return { status: r.status, text: await r.text(), location: r.headers.get("location") };
    };

    const out = await runFermix(["setup", "--web", "--no-browser"], { env });
    const launch = new URL(/http:\/\/127\.0\.0\.1:\d+\/setup\?t=\S+/.exec(out.stdout)![0]);
    const exchanged = await fetch(`${origin}${launch.pathname}${launch.search}`, { redirect: "manual" });
    const cookie = exchanged.headers.get("set-cookie")!.split(";")[0]!;
    const get = (path: string) => ask(path, { headers: { cookie } });

    const sessions = join(h.home, "setup-sessions.json");
    expect(statSync(sessions).mode & 0o777).toBe(0o600);
    const restartPage = await get("/setup/restart");
    expect(restartPage.text).toContain(`pid ${daemon.pid}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(restartPage.text)![1]!;
    const post = (fields: Record<string, string>) =>
      ask("/setup/restart", {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });

    // A wrong form token restarts nothing.
    expect((await post({ csrf: "wrong", back: "/setup/providers" })).status).toBe(403);
    expect((await get("/setup/restart")).text).toContain(`pid ${daemon.pid}`);

    const started = await post({ csrf, back: "/setup/providers" });
    expect(started.status).toBe(303);
    const wait = started.location!;
    expect(wait).toStartWith(`/setup/restart?from=${daemon.pid}&back=%2Fsetup%2Fproviders`);

    // Poll the waiting page as its meta refresh would: it waits (or the daemon is between stop and start, and
    // nothing answers) until another daemon answers with the redirect back.
    let back: string | undefined;
    const deadline = Date.now() + 60_000;
    while (!back && Date.now() < deadline) {
      const r = await get(wait).catch(() => undefined);
      if (r?.status === 303) back = r.location!;
      else if (r?.status === 200) {
        expect(r.text).toContain('<meta http-equiv="refresh" content="2;url=/setup/restart?from=');
      } else if (r) throw new Error(`the wait page answered ${r.status}: ${r.text}`);
      if (!back) await Bun.sleep(50);
    }
    expect(back).toBe("/setup/providers");

    // The original process is gone; a different daemon answers, and the same cookie still opens the pages.
    expect(await daemon.stop()).toBeNumber();
    const status = await runFermix(["status", "--json"], { env });
    const pid = Number(/"pid":\s*(\d+)/.exec(status.stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(daemon.pid);
    const providers = await get("/setup/providers");
    expect(providers.status).toBe(200);
    expect(providers.text).toContain("<h1>Providers</h1>");
    const home = await get("/setup/restart");
    expect(home.text).toContain(`pid ${pid}`);
    // The form token survived too: a form posted from a page loaded before the restart still goes through.
    const logout = await ask("/logout", {
      method: "POST",
      headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(logout.status).toBe(200);
    expect((await get("/setup/providers")).status).toBe(403);
  }, 120_000);
});
