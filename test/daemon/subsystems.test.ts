import { describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { PLAIN } from "../../src/cli/paint.ts";
import { renderStatus } from "../../src/cli/status.ts";
import { startDaemon } from "../../src/daemon/server.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { SUBSYSTEMS } from "../../src/subsystems.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-subsystems-0123456789";
const defer = cleanupAfterEach();

/** Polls `done` until it holds; the deadline is a safety net, not what is measured. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A loopback port somebody else holds, so the setup page cannot have it. */
function takenPort(): number {
  const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
  defer(() => squatter.stop(true));
  return squatter.port!;
}

describe("the daemon's parts", () => {
  test("start with the daemon; status and health read each part's own state, and status names the troubled ones", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    const port = takenPort();
    // A channel nobody may talk to is refused (no token is ever sent anywhere), and the page's port is taken.
    h.writeConfig(
      [
        "[fermix_web]",
        `port = ${port}`,
        "",
        "[fermix_channels.telegram]",
        "enabled = true",
        'bot_token = "1:x"',
        "",
      ].join("\n"),
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    const app = await createApp({ env, role: "daemon" });
    const daemon = await startDaemon(app, { web: () => app.web() });
    defer(() => daemon.stop());
    await app.start();
    // The channels start in the background (a platform that never answers must not hold up the boot): the boot's
    // end says nothing of theirs, so wait for it.
    const channels = app.subsystems.find((part) => part.name === "channels")!;
    await until(() => channels.status().state !== "starting", 10_000);

    const client = createDaemonClient(daemon.socket);
    const status = await client.status();
    const byName = Object.fromEntries((status.subsystems ?? []).map((s) => [s.name, s]));
    // One status per part of the list, in its order.
    expect((status.subsystems ?? []).map((s) => s.name)).toEqual(
      Object.values(SUBSYSTEMS).map((definition) => definition.name),
    );
    expect(byName.jobs).toEqual({ name: "jobs", state: "running" });
    expect(byName.plugins).toEqual({ name: "plugins", state: "off" });
    expect(byName["mcp-servers"]).toEqual({ name: "mcp-servers", state: "off" });
    // Never asked for: its code is not loaded.
    expect(byName.browser).toEqual({ name: "browser", state: "idle" });
    expect(byName.channels?.state).toBe("degraded");
    expect(byName.channels?.detail).toStartWith("telegram: ");
    expect(byName.web?.state).toBe("degraded");
    expect(status.web?.state).toBe("failed");
    // /v1/channels is the same part's runtime.
    expect((await client.channels()).channels.map((c) => [c.name, c.state])).toEqual([["telegram", "refused"]]);
    expect((await client.health()).subsystems).toEqual(status.subsystems);

    const text = renderStatus({ ...status, reconnect: [], plugins: [] }, PLAIN);
    expect(text).toContain(`channels: degraded — ${byName.channels?.detail}`);
    expect(text).toContain("web: degraded — ");
    expect(text).not.toContain("jobs:");
  });

  test("a one-shot app starts nothing: every part is idle or off until something uses it", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const app = await createApp({ env: { FERMIX_HOME: h.home, HOME: h.userHome } });
    defer(() => app.close());
    expect(app.subsystems.map((s) => s.loaded())).toEqual(app.subsystems.map(() => false));
    expect(Object.fromEntries(app.subsystems.map((s) => [s.name, s.status().state]))).toEqual({
      "trace-export": "off",
      "memory-review": "idle",
      "mcp-supervisor": "off",
      plugins: "off",
      "mcp-servers": "off",
      jobs: "idle",
      channels: "off",
      "coding-harness": "off",
      "computer-use": "off",
      browser: "idle",
      web: "idle",
    });
    await app.jobs();
    expect(app.subsystems.find((s) => s.name === "jobs")?.status().state).toBe("running");
  });
});
