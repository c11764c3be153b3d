import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { createApp } from "../../src/app.ts";
import { startDaemon } from "../../src/daemon/server.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

describe("a stop is bounded", () => {
  test("parts that never finish stopping do not hold it: the socket goes first, stopped resolves at the deadline, the lock is free", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const app = await createApp({ env: { FERMIX_HOME: h.home } });
    const realClose = app.close;
    defer(() => realClose());
    let closeAsked = false;
    // A part whose stop never returns (a hung peer, a library that never settles).
    app.close = () => {
      closeAsked = true;
      return new Promise(() => {});
    };
    const deadlineMs = 400;
    const daemon = await startDaemon(app, { stopDeadlineMs: deadlineMs });
    await createDaemonClient(daemon.socket).health();

    const asked = performance.now();
    const stopping = daemon.stop();
    await daemon.stopped;
    await stopping;
    const took = performance.now() - asked;
    expect(closeAsked).toBe(true);
    expect(took).toBeGreaterThanOrEqual(deadlineMs - 20);
    expect(took).toBeLessThan(deadlineMs + 1500);
    expect(existsSync(daemon.socket)).toBe(false);
    // The instance lock was released: another daemon may start on this home at once.
    const next = await startDaemon(await createApp({ env: { FERMIX_HOME: h.home } }));
    await next.stop();
  });
});
