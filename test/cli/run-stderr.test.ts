import { describe, expect, test } from "bun:test";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

describe("fermix run's log lines on stderr (compiled binary)", () => {
  test("under journald: priority-prefixed lines without our time, through to the last one before exit", async () => {
    if (process.platform !== "linux") return console.warn("skipped: JOURNAL_STREAM is a Linux (systemd) convention");
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    // As systemd does: JOURNAL_STREAM names stderr's own device and inode (here a pipe's, found from inside).
    const script = 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" run';
    const proc = Bun.spawn(["sh", "-c", script, await fermixBinary()], {
      env: { PATH: "/usr/bin:/bin", FERMIX_HOME: h.home, HOME: h.userHome },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    defer(() => proc.kill("SIGKILL"));
    const reader = proc.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let err = "";
    while (!err.includes("listening on")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the daemon exited before it was ready:\n${err}`);
      err += value;
    }
    proc.kill("SIGTERM");
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      err += value;
    }
    expect(await proc.exited).toBe(0);
    const lines = err.trimEnd().split("\n");
    expect(lines[0]).toBe(`<6>INFO [daemon] listening on ${h.home}/daemon.sock (pid ${proc.pid})`);
    // The line logged just before the process exits is written, not left in flight.
    expect(lines.at(-1)).toBe("<6>INFO [daemon] stopped");
    for (const line of lines) expect(line).toMatch(/^<[0-7]>(DEBUG|INFO|WARN|ERROR) /);
  });
});
