import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { DoctorRow } from "../../../src/doctor/check.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { dashboardPage } from "../../../src/web/pages/dashboard.ts";
import { fixPage } from "../../../src/web/pages/doctor-rows.ts";
import { localBack, restartedTo, restartPage } from "../../../src/web/pages/restart.ts";
import { PAGES } from "../../../src/web/pages.ts";
import { RESTART_WAIT_SCRIPT } from "../../../src/web/restart-wait-script.ts";

const ctx = (query = "") => ({ csrf: "tok", query: new URLSearchParams(query) });

describe("Apply & restart page", () => {
  test("back is a local path or home: no other origin, no protocol-relative or backslash tricks", () => {
    expect(localBack("/setup/providers?provider=ollama")).toBe("/setup/providers?provider=ollama");
    for (const bad of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
      "",
      null,
    ]) {
      expect(localBack(bad)).toBe("/");
    }
  });

  test("the server redirects the wait URL only when another daemon answers, and only to one of its pages", () => {
    const url = (q: string) => new URL(`http://127.0.0.1/setup/restart?${q}`);
    expect(restartedTo(url("from=10&back=/setup/providers"), PAGES, 10)).toBeUndefined();
    expect(restartedTo(url("from=10&back=/setup/providers"), PAGES, 11)).toBe("/setup/providers");
    expect(restartedTo(url("from=10&back=/nope"), PAGES, 11)).toBe("/");
    expect(restartedTo(url("from=10&back=//evil.example/"), PAGES, 11)).toBe("/");
    expect(restartedTo(url(""), PAGES, 11)).toBeUndefined();
  });

  test("posting arms the restart; the loaded waiting page's first poll fires it, once; the page polls by script", async () => {
    let restarts = 0;
    let fired!: () => void;
    const restarted = new Promise<void>((resolve) => {
      fired = resolve;
    });
    const deps = {
      restart: {
        pid: 42,
        restart: async () => {
          restarts++;
          fired();
        },
      },
    } as unknown as WebDeps;
    const done = await restartPage.submit!(new URLSearchParams({ back: "/setup/channels" }), deps);
    // Not yet: the daemon must still be there to serve the waiting page.
    expect(restarts).toBe(0);
    expect(done).toEqual({
      ok: true,
      notice: "Restarting…",
      redirect: "/setup/restart?from=42&back=%2Fsetup%2Fchannels",
    });
    const waiting = (await restartPage.render(deps, ctx("from=42&back=/setup/channels"))).html;
    expect(waiting).toContain(
      '<noscript><meta http-equiv="refresh" content="2;url=/setup/restart?from=42&amp;back=%2Fsetup%2Fchannels"></noscript>',
    );
    expect(waiting).toContain(`<script>${RESTART_WAIT_SCRIPT}</script>`);
    expect(restartPage.scriptHashes).toEqual([
      `sha256-${createHash("sha256").update(RESTART_WAIT_SCRIPT).digest("base64")}`,
    ]);
    expect(waiting).toContain("waiting for the daemon");
    expect(restarts).toBe(0);
    // The loaded page asks again: that starts the restart, once.
    await restartPage.render(deps, ctx("from=42&back=/setup/channels"));
    await restarted;
    await restartPage.render(deps, ctx("from=42&back=/setup/channels"));
    expect(restarts).toBe(1);
    const idle = (await restartPage.render(deps, ctx())).html;
    expect(idle).toContain('action="/setup/restart"');
    expect(idle).toContain('name="csrf" value="tok"');
    const none = await restartPage.submit!(new URLSearchParams(), {} as WebDeps);
    expect(none).toMatchObject({ ok: false });
  });
});

describe("the dashboard's fix links", () => {
  test("each row in Needs attention links to the page that fixes it, else to /doctor", async () => {
    const rows: DoctorRow[] = [
      {
        id: "providers.openai",
        title: "providers",
        status: "fail",
        detail: "the key was refused",
        fix: "fermix setup",
      },
      { id: "channels.telegram", title: "channels", status: "warn", detail: "no owner id" },
      { id: "plugins.github", title: "plugins", status: "warn", detail: "sign-in needed" },
      { id: "disk", title: "disk", status: "warn", detail: "low" },
      { id: "web", title: "web", status: "ok", detail: "listening" },
    ];
    expect(rows.map(fixPage)).toEqual([
      "/setup/providers?provider=openai",
      "/setup/channels",
      "/setup/plugins",
      "/doctor",
      "/doctor",
    ]);
    expect(fixPage({ id: "providers" })).toBe("/setup/providers");
    const deps = {
      status: async () => {
        throw new Error("down");
      },
      doctor: async () => ({ rows, counts: { ok: 1, warn: 3, fail: 1 }, version: "0.1.0" }),
      recentRuns: async () => [],
    } as unknown as WebDeps;
    const page = (await dashboardPage.render(deps, ctx())).html;
    expect(page).toContain('<a href="/setup/providers?provider=openai" data-fix="providers.openai">fix it</a>');
    expect(page).toContain('href="/setup/channels" data-fix="channels.telegram"');
    expect(page).toContain('href="/setup/plugins" data-fix="plugins.github"');
    expect(page).not.toContain('data-fix="web"');
  });
});
