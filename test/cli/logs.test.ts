import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
const T = "2025-03-01T12:00:00.000Z";

function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const logs = join(h.home, "logs");
  mkdirSync(logs, { recursive: true });
  const env = { PATH: "/usr/bin:/bin", FERMIX_HOME: h.home, HOME: h.userHome };
  return {
    home: h.home,
    file: join(logs, "fermix.log"),
    logs: (...args: string[]) => runCommand([process.execPath, MAIN, "logs", ...args], { env }),
    follow: (...args: string[]) => follow([process.execPath, MAIN, "logs", ...args], env),
  };
}

/** `fermix logs -f …` in a child process, with a way to wait for what it prints. */
function follow(argv: string[], env: Record<string, string>) {
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  defer(async () => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
  });
  const output = { stdout: "", stderr: "" };
  let wake = () => {};
  let open = 2;
  for (const name of ["stdout", "stderr"] as const) {
    void (async () => {
      for await (const text of proc[name].pipeThrough(new TextDecoderStream())) {
        output[name] += text;
        wake();
      }
      open--;
      wake();
    })();
  }
  return {
    output,
    /** Resolves once `ready` holds; a generous deadline only turns a hang into a readable failure. */
    async until(ready: () => boolean, what: string) {
      let late = false;
      const deadline = setTimeout(() => {
        late = true;
        wake();
      }, 20_000);
      try {
        while (!ready()) {
          if (late || open === 0)
            throw new Error(`never saw ${what}; stdout:\n${output.stdout}\nstderr:\n${output.stderr}`);
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        clearTimeout(deadline);
      }
    },
    async stop(signal: "SIGTERM" | "SIGINT" = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

const line = (level: string, text: string) => `${T} ${level} [test] ${text}\n`;
const count = (text: string, part: string) => text.split(part).length - 1;

describe("fermix logs", () => {
  test("no log yet: a sentence, exit 0", async () => {
    const { logs, file } = setup();
    expect(await logs()).toEqual({
      code: 0,
      stdout: "",
      stderr: `no log yet at ${file}: the daemon writes it once it runs\n`,
    });
  });

  test("the last lines across the rotated files, with --lines, --level and --json", async () => {
    const { logs, file } = setup();
    writeFileSync(`${file}.2`, line("INFO", "a"));
    writeFileSync(`${file}.1`, `${line("ERROR", "b")}Error: b\n    at x\n${line("DEBUG", "c")}`);
    writeFileSync(file, line("WARN", "d") + line("INFO", "e"));
    const all = await logs();
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(
      line("INFO", "a") +
        line("ERROR", "b") +
        "Error: b\n    at x\n" +
        line("DEBUG", "c") +
        line("WARN", "d") +
        line("INFO", "e"),
    );
    expect((await logs("-n", "3")).stdout).toBe(line("DEBUG", "c") + line("WARN", "d") + line("INFO", "e"));
    expect((await logs("-n2", "--level", "warn")).stdout).toBe(
      `${line("ERROR", "b")}Error: b\n    at x\n${line("WARN", "d")}`,
    );
    const json = await logs("--json", "--level=error");
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ time: T, level: "error", tag: "test", text: "b\nError: b\n    at x" }]);
  });

  test("lines pass the redactor again: a file may predate a rule", async () => {
    const { logs, file } = setup();
    writeFileSync(file, line("INFO", "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz"));
    expect((await logs()).stdout).toBe(line("INFO", "key [REDACTED:anthropic]"));
  });

  test("usage errors name what is allowed", async () => {
    const { logs } = setup();
    const level = await logs("--level", "loud");
    expect(level.code).toBe(2);
    expect(level.stderr).toContain('--level takes one of debug, info, warn, error (got "loud")');
    const traces = await logs("--traces", "nope");
    expect(traces.code).toBe(2);
    expect(traces.stderr).toContain("--traces takes one of llm_call, tool_exec, agent_event,");
    expect((await logs("-n", "-1")).code).toBe(2);
    expect((await logs("extra")).code).toBe(2);
  });

  test("-f prints new lines, survives rotation without losing or repeating a line, and SIGTERM ends it with 0", async () => {
    const { file, follow } = setup();
    writeFileSync(file, line("INFO", "before 1") + line("INFO", "before 2"));
    const f = follow("-f");
    await f.until(() => f.output.stdout.includes("before 2"), "the last existing line");

    appendFileSync(file, line("INFO", "appended"));
    await f.until(() => f.output.stdout.includes("appended"), "the appended line");

    // As log.ts rotates, with a last line into the old file just before the rename.
    appendFileSync(file, line("INFO", "last of the old file"));
    renameSync(file, `${file}.1`);
    appendFileSync(file, line("INFO", "first of the new file"));
    await f.until(() => f.output.stdout.includes("first of the new file"), "the new file's line");

    expect(await f.stop()).toBe(0);
    expect(f.output.stdout).toBe(
      line("INFO", "before 1") +
        line("INFO", "before 2") +
        line("INFO", "appended") +
        line("INFO", "last of the old file") +
        line("INFO", "first of the new file"),
    );
    expect(count(f.output.stdout, "last of the old file")).toBe(1);
    expect(f.output.stderr).toBe("");
  });

  test("-f with no log yet waits for it; --level applies to new lines; SIGINT ends it with 0", async () => {
    const { file, follow } = setup();
    const f = follow("-f", "--level", "warn");
    await f.until(() => f.output.stderr.includes("waiting for it"), "the note that it waits");
    writeFileSync(file, `${line("INFO", "quiet")}${line("ERROR", "loud")}  at trace\n`);
    await f.until(() => f.output.stdout.includes("at trace"), "the error line");
    expect(await f.stop("SIGINT")).toBe(0);
    expect(f.output.stdout).toBe(`${line("ERROR", "loud")}  at trace\n`);
  });

  test("--traces TYPE tails the newest day's file and follows it into the next day", async () => {
    const { home, logs, follow } = setup();
    const day = (d: string) => {
      mkdirSync(join(home, "traces", d), { recursive: true });
      return join(home, "traces", d, "llm_call.jsonl");
    };
    writeFileSync(day("2025-02-28"), '{"n":0}\n');
    writeFileSync(day("2025-03-01"), '{"n":1}\n{"n":2}\n');
    // Another type's folder for a later day does not count for llm_call.
    mkdirSync(join(home, "traces", "2025-03-02"), { recursive: true });
    writeFileSync(join(home, "traces", "2025-03-02", "tool_exec.jsonl"), '{"t":1}\n');
    expect(await logs("--traces", "llm_call", "-n", "1")).toEqual({ code: 0, stdout: '{"n":2}\n', stderr: "" });
    expect((await logs("--traces", "llm_call")).stdout).toBe('{"n":1}\n{"n":2}\n');

    const f = follow("--traces", "llm_call", "-f");
    await f.until(() => f.output.stdout.includes('{"n":2}'), "the last trace line");
    appendFileSync(day("2025-03-01"), '{"n":3}\n');
    writeFileSync(day("2025-03-02"), '{"n":4}\n');
    await f.until(() => f.output.stdout.includes('{"n":4}'), "the next day's line");
    expect(await f.stop()).toBe(0);
    expect(f.output.stdout).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
  });

  test("--traces with nothing written yet says so", async () => {
    const { home, logs } = setup();
    expect(await logs("--traces", "tool_exec")).toEqual({
      code: 0,
      stdout: "",
      stderr: `no tool_exec traces yet under ${join(home, "traces")}: the daemon writes them once it runs\n`,
    });
  });
});
