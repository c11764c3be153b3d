import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { ALLOCATOR_SETTINGS, allocatorExec } from "../../src/daemon/allocator-settings.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const BINARY = { binary: "/opt/fermix/bin/fermix" };

describe("the daemon's allocator settings", () => {
  test("a daemon started without them starts again with them, the same command and the rest of its environment", () => {
    expect(allocatorExec({ HOME: "/home/ada", UNSET: undefined }, BINARY, ["run"], true)).toEqual({
      file: "/opt/fermix/bin/fermix",
      args: ["/opt/fermix/bin/fermix", "run"],
      env: { ...ALLOCATOR_SETTINGS, HOME: "/home/ada" },
    });
  });

  test("once they are set (by that start, or by the owner, whose values win) nothing starts again", () => {
    const set = Object.fromEntries(Object.keys(ALLOCATOR_SETTINGS).map((name) => [name, "250"]));
    expect(allocatorExec(set, BINARY, ["run"], true)).toBeUndefined();
    expect(allocatorExec({}, BINARY, ["run"], false)).toBeUndefined();
  });

  test("a daemon run from a checkout (`bun --preload … src/main.ts run`) is left as it was started", () => {
    expect(allocatorExec({}, { binary: "/usr/bin/bun", entry: "/src/main.ts" }, ["run"], true)).toBeUndefined();
  });

  test.skipIf(!existsSync("/proc/self/environ"))("a running daemon has them, under its first pid", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const daemon = await startFermixDaemon({ FERMIX_HOME: h.home, HOME: h.userHome });
    defer(() => daemon.stop());
    const environ = readFileSync(`/proc/${daemon.pid}/environ`, "utf8").split("\0");
    for (const [name, value] of Object.entries(ALLOCATOR_SETTINGS)) expect(environ).toContain(`${name}=${value}`);
  });
});
