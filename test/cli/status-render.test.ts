import { describe, expect, test } from "bun:test";
import { colors } from "consola/utils";
import { type Paint, PLAIN, stdoutPaint } from "../../src/cli/paint.ts";
import { renderStatus } from "../../src/cli/status.ts";
import { renderReport } from "../../src/doctor/render.ts";
import { VERSION } from "../../src/version.ts";

/** Marks what would be coloured, so the test sees which words are, whatever this terminal is. */
const MARK: Paint = {
  ok: (s) => `<ok>${s}</ok>`,
  warn: (s) => `<warn>${s}</warn>`,
  fail: (s) => `<fail>${s}</fail>`,
};

const STATUS = {
  pid: 42,
  version: "0.0.1",
  uptime_ms: 65_000,
  primary_provider: "openai",
  fallback_providers: [],
  reconnect: ["gmail"],
  plugins: [
    { name: "notes", source: "catalog", enabled: true, status: "ready", readiness: "ready" },
    { name: "gmail", source: "catalog", enabled: true, status: "ready", readiness: "ready" },
    { name: "files", source: "catalog", enabled: true, status: "starting", readiness: "ready", detail: "attempt 1" },
    {
      name: "slack",
      source: "catalog",
      enabled: true,
      status: "quarantined",
      readiness: "ready",
      fix: "fermix plugins reload",
    },
  ],
} as unknown as Parameters<typeof renderStatus>[0];

describe("colour in human output", () => {
  test("only a terminal without NO_COLOR gets consola's colours; a pipe never does, FORCE_COLOR or not", () => {
    expect(stdoutPaint({}, false)).toBe(PLAIN);
    expect(stdoutPaint({ FORCE_COLOR: "1" }, false)).toBe(PLAIN);
    expect(stdoutPaint({ NO_COLOR: "1" }, true)).toBe(PLAIN);
    expect(stdoutPaint({ TERM: "dumb" }, true)).toBe(PLAIN);
    const tty = stdoutPaint({ TERM: "xterm-256color" }, true);
    expect([tty.ok, tty.warn, tty.fail]).toEqual([colors.green, colors.yellow, colors.red]);
  });

  test("fermix status colours its status words and nothing else", () => {
    const marked = renderStatus(STATUS, MARK);
    expect(marked).toBe(
      [
        "fermix: <ok>running</ok> (pid 42, version 0.0.1, up 1m5s)",
        "providers: openai",
        `<warn>warning:</warn> the daemon runs version 0.0.1 but this binary is ${VERSION}; restart it: fermix restart`,
        "plugins: gmail <warn>needs reconnecting</warn> — fermix plugins auth reauthorize gmail",
        "plugins: <ok>ready</ok>: notes, gmail",
        "plugins: files <warn>starting</warn> (attempt 1)",
        "plugins: slack <fail>quarantined</fail> — fermix plugins reload",
        "",
      ].join("\n"),
    );
    expect(renderStatus(STATUS, PLAIN)).toBe(marked.replace(/<\/?(ok|warn|fail)>/g, ""));
  });

  test("errors nothing handled are a warning line, only when there are any", () => {
    const running = { ...STATUS, version: VERSION, reconnect: [], plugins: [] } as typeof STATUS;
    expect(renderStatus({ ...running, daemon_errors: 0 }, MARK)).not.toContain("daemon:");
    expect(renderStatus({ ...running, daemon_errors: 1 }, MARK)).toContain(
      "daemon: <warn>1 unexpected error</warn> since it started — fermix logs --level error\n",
    );
  });

  test("fermix doctor colours the status column and keeps its layout on the plain words", () => {
    const report = {
      ok: false,
      full: false,
      version: "1",
      counts: { ok: 1, warn: 1, fail: 1 },
      rows: [
        { id: "a", title: "config", status: "ok", detail: "fine" },
        { id: "b", title: "daemon", status: "warn", detail: "down", fix: "fermix start" },
        { id: "c", title: "disk", status: "fail", detail: "full", fix: "free some" },
      ],
    } as const;
    const marked = renderReport(structuredClone(report) as never, MARK);
    expect(marked).toBe(
      "<ok>ok</ok>   config     fine\n<warn>warn</warn> daemon     down\n     fix: fermix start\n<fail>fail</fail> disk       full\n     fix: free some\n\n1 ok, 1 warning, 1 failure\n",
    );
    expect(renderReport(structuredClone(report) as never, PLAIN)).toBe(marked.replace(/<\/?(ok|warn|fail)>/g, ""));
  });
});
