/**
 * src/runtime/connect-failure.ts against the errors the runtimes really raise: a socket path with nothing at it, a
 * socket file left by a listener killed with SIGKILL, and a peer that accepts the request and hangs up. Bun's fetch
 * and Bun.connect here; Deno's fetch (the npm package's Deno, as test/runtime/deno-smoke.test.ts runs it) in a child.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { failedToConnect } from "../../src/runtime/connect-failure.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { leaveStaleSocket } from "../fixture/stale-socket.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DENO = join(ROOT, "node_modules", "deno", "deno");
const DENO_DIR = mkdtempSync(join(tmpdir(), "fx-deno-"));
afterAll(() => rmSync(DENO_DIR, { recursive: true, force: true }));
const defer = cleanupAfterEach();

/** The three sockets: nothing there, a stale file, and a peer that reads the request and closes. */
async function sockets() {
  const dir = mkdtempSync(join(tmpdir(), "fxcf-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, "missing.sock");
  const stale = join(dir, "stale.sock");
  const hangsUp = join(dir, "hangs-up.sock");
  await leaveStaleSocket(stale);
  const server = Bun.listen({ unix: hangsUp, socket: { data: (s) => void s.end() } });
  defer(() => server.stop(true));
  return { missing, stale, hangsUp };
}

describe("a refused connect, told from a connection closed before its answer", () => {
  test("Bun's fetch", async () => {
    const { missing, stale, hangsUp } = await sockets();
    const errorOf = (unix: string) =>
      fetch("http://fermix/v1/ask", { unix, method: "POST", body: "{}" } as RequestInit).then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failedToConnect(await errorOf(missing))).toBe(true);
    expect(failedToConnect(await errorOf(stale))).toBe(true);
    expect(failedToConnect(await errorOf(hangsUp))).toBe(false);
  });

  test("Bun.connect", async () => {
    const { missing, stale } = await sockets();
    const errorOf = (unix: string) =>
      Bun.connect({ unix, socket: { data() {} } }).then(
        (s) => void s.end(),
        (err: unknown) => err,
      );
    expect(failedToConnect(await errorOf(missing))).toBe(true);
    expect(failedToConnect(await errorOf(stale))).toBe(true);
    expect(failedToConnect(undefined)).toBe(false);
    expect(failedToConnect(new Error("something else"))).toBe(false);
  });

  test("Deno's fetch over a unix client", async () => {
    const { missing, stale, hangsUp } = await sockets();
    const module = JSON.stringify(join(ROOT, "src", "runtime", "connect-failure.ts"));
    const script = `
      const { failedToConnect } = await import(${module});
      const said = [];
      for (const path of Deno.args) {
        const client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
        said.push(await fetch("http://fermix/v1/ask", { client, method: "POST", body: "{}" }).then(
          () => "answered",
          (err) => failedToConnect(err),
        ));
      }
      console.log(JSON.stringify(said));`;
    const run = await runCommand([DENO, "eval", "--quiet", script, missing, stale, hangsUp], {
      env: { PATH: "/usr/bin:/bin", DENO_DIR, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([true, true, false]);
  });
});
