import { describe, expect, test } from "bun:test";
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { registerSecret } from "../../src/config/secret-registry.ts";
import { createLog } from "../../src/observability/log.ts";
import { type StderrStyle, stderrStyle } from "../../src/observability/stderr-sink.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();
const ESC = "\u001b[";
const SECRET = "hunter2-correct-horse";
// As resolving it would: the log redacts every secret the process registered.
registerSecret(SECRET);
const VENDOR_KEY = "sk-ant-api03-abcdefghijklmnop";
const AT = new Date("2026-01-02T03:04:05.678Z");

function logDir() {
  const dir = mkdtempSync(join(tmpdir(), "fx-log-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A log with both sinks, stderr captured in `out` as written. */
function capture(style: StderrStyle, over: { level?: "debug" | "info" } = {}) {
  const out: string[] = [];
  const file = join(logDir(), "logs", "fermix.log");
  const log = createLog({
    file,
    stderr: { style, write: (text) => out.push(text) },
    now: () => AT,
    ...over,
  });
  return { log, out, file };
}

describe("the stderr sink", () => {
  test("on a terminal: the file's line, tagged, with the level coloured", async () => {
    const { log, out, file } = capture("color");
    await log.stderrReady;
    log.withTag("jobs").info("job_1 started");
    log.withTag("plugins").withTag("mcp").warn("slow to answer");
    log.error("boom");
    expect(out).toHaveLength(3);
    for (const line of out) expect(line).toContain(ESC);
    expect(out[0]).toContain(`${ESC}36mINFO${ESC}39m`);
    expect(out[1]).toContain(`${ESC}33mWARN${ESC}39m`);
    expect(out[2]).toContain(`${ESC}31m`);
    // Without its colour, each is byte for byte the line fermix.log holds.
    expect(out.map((l) => stripVTControlCharacters(l)).join("")).toBe(readFileSync(file, "utf8"));
    expect(stripVTControlCharacters(out[1]!)).toBe(`${AT.toISOString()} WARN [plugins:mcp] slow to answer\n`);
  });

  test("piped or NO_COLOR: the same lines, plain", async () => {
    expect(stderrStyle({ NO_COLOR: "1" }, { isTTY: true })).toBe("plain");
    expect(stderrStyle({ TERM: "dumb" }, { isTTY: true })).toBe("plain");
    expect(stderrStyle({}, { isTTY: false })).toBe("plain");
    expect(stderrStyle({ TERM: "xterm-256color" }, { isTTY: true })).toBe("color");

    const { log, out, file } = capture("plain");
    await log.stderrReady;
    log.withTag("jobs").info("job_1 started");
    log.warn({ count: 2 });
    expect(out.join("")).not.toContain(ESC);
    expect(out.join("")).toBe(readFileSync(file, "utf8"));
    expect(out[0]).toBe(`${AT.toISOString()} INFO [jobs] job_1 started\n`);
  });

  test("under journald: no time of ours, a priority prefix on every line, the level word kept", async () => {
    const { log, out } = capture("journald", { level: "debug" });
    await log.stderrReady;
    log.withTag("daemon").info("listening");
    log.debug("detail");
    const err = new Error("failed");
    err.stack = "Error: failed\n    at somewhere (x.ts:1:1)";
    log.withTag("plugins").error("start:", err);
    expect(out).toEqual([
      "<6>INFO [daemon] listening\n",
      "<7>DEBUG detail\n",
      "<3>ERROR [plugins] start: Error: failed\n<3>    at somewhere (x.ts:1:1)\n",
    ]);
  });

  test("journald is believed only when JOURNAL_STREAM names stderr itself", () => {
    const dir = logDir();
    const fd = openSync(join(dir, "stream"), "w");
    defer(() => closeSync(fd));
    const st = fstatSync(fd, { bigint: true });
    expect(stderrStyle({ JOURNAL_STREAM: `${st.dev}:${st.ino}` }, { fd, isTTY: false })).toBe("journald");
    // Inherited by a shell whose stderr is a terminal: the terminal's style.
    expect(stderrStyle({ JOURNAL_STREAM: `${st.dev}:${st.ino + 1n}` }, { fd, isTTY: true })).toBe("color");
    expect(stderrStyle({ JOURNAL_STREAM: "garbage" }, { fd, isTTY: false })).toBe("plain");
  });

  test("secrets are redacted before consola sees the line, in every style", async () => {
    for (const style of ["color", "plain", "journald"] as const) {
      const { log, out, file } = capture(style);
      await log.stderrReady;
      log.withTag(`key-${SECRET}`).info(`token ${SECRET} and ${VENDOR_KEY}`, { authorization: `Bearer ${SECRET}` });
      const text = out.join("");
      expect(text).toContain("[REDACTED:secret]");
      expect(text).toContain("[REDACTED:anthropic]");
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(VENDOR_KEY);
      expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    }
  });

  test("lines logged before consola has loaded come out first, in order; levels below the minimum never", async () => {
    const { log, out } = capture("plain");
    log.info("one");
    log.debug("dropped");
    log.withTag("t").warn("two");
    log.error("three");
    // Nothing yet: the import resolves after this synchronous stretch at the earliest.
    expect(out).toEqual([]);
    await log.stderrReady;
    log.info("four");
    expect(out.map((l) => l.replace(`${AT.toISOString()} `, ""))).toEqual([
      "INFO one\n",
      "WARN [t] two\n",
      "ERROR three\n",
      "INFO four\n",
    ]);
  });

  test("a process that exits before consola has loaded still writes what it logged, plainly", async () => {
    const logModule = resolve(import.meta.dir, "../../src/observability/log.ts");
    const registryModule = resolve(import.meta.dir, "../../src/config/secret-registry.ts");
    const script = [
      `import { createLog } from ${JSON.stringify(logModule)};`,
      `import { registerSecret } from ${JSON.stringify(registryModule)};`,
      `registerSecret(${JSON.stringify(SECRET)});`,
      `const log = createLog({ stderr: { style: "color" } });`,
      `log.withTag("boot").error("refused: ${SECRET}");`,
      "process.exit(7);",
    ].join("\n");
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(7);
    expect(stderr).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z ERROR \[boot\] refused: \[REDACTED:secret\]\n$/);
  });
});
