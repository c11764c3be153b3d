import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { skillText } from "./_fixture.ts";

const defer = cleanupAfterEach();

/** A FERMIX_HOME with no skills folder, and an empty directory to run from: only the binary's own files exist. */
function setup() {
  const h = tempHome();
  const cwd = mkdtempSync(join(tmpdir(), "fx-cwd-"));
  defer(() => rmSync(cwd, { recursive: true, force: true }));
  defer(() => h[Symbol.asyncDispose]());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  const write = (path: string, text: string) => {
    const file = join(h.home, "skills", path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  return { home: h.home, env, cwd, write, fermix: (...args: string[]) => runFermix(args, { env, cwd }) };
}

describe("fermix skills (compiled binary)", () => {
  test("list shows the bundled self-knowledge skill from the embedded files, with no skills on disk", async () => {
    const { fermix } = setup();
    const result = await fermix("skills", "list");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^self-knowledge {2}bundled {2}Use when the user asks what fermix is/m);
    expect(result.stdout).not.toContain("error:");
  });

  test("a broken SKILL.md in $FERMIX_HOME/skills is listed as an error while the others load", async () => {
    const { fermix, write } = setup();
    write("standup/SKILL.md", skillText("standup", "Use for the daily standup."));
    const broken = write("broken/SKILL.md", "---\nname: broken\ndescription: d\nallowed_tools: shell\n---\nbody\n");
    const result = await fermix("skills", "list");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      "self-knowledge  bundled  Use when the user asks what fermix is, what it can do, how to set it up, script it or configure it, or where it keeps its files.",
      "standup         home     Use for the daily standup.",
      `error: ${broken}: allowed_tools: expected a list such as [file_read, shell], got "shell"`,
    ]);

    const json = JSON.parse((await fermix("skills", "list", "--json")).stdout);
    expect(json.ok).toBe(true);
    expect(json.result.skills.map((s: any) => [s.name, s.source])).toEqual([
      ["self-knowledge", "bundled"],
      ["standup", "home"],
    ]);
    expect(json.result.errors).toEqual([{ file: broken, field: "allowed_tools", reason: expect.any(String) }]);
  });

  test("a home skill named self-knowledge overrides the bundled one, and the listing says so", async () => {
    const { fermix, write } = setup();
    write("self-knowledge/SKILL.md", skillText("self-knowledge", "My own notes about fermix."));
    const result = await fermix("skills", "list");
    expect(result.stdout).toContain("self-knowledge  home, overrides bundled  My own notes about fermix.");
  });

  test("view prints a skill's body or one of its reference files, and refuses other paths", async () => {
    const { fermix } = setup();
    const body = await fermix("skills", "view", "self-knowledge");
    expect(body.code).toBe(0);
    expect(body.stdout).toStartWith("# fermix, as it is today\n");
    expect((await fermix("skills", "view", "self-knowledge", "sandbox")).stdout).toStartWith("# The sandbox\n");
    const outside = await fermix("skills", "view", "self-knowledge", "../../../etc/passwd");
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('fermix: skill "self-knowledge" has no file "../../../etc/passwd"');
    const unknown = await fermix("skills", "view", "nope");
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no skill named "nope"')]);
  });

  test("usage errors exit 2", async () => {
    const { fermix } = setup();
    expect((await fermix("skills", "frobnicate")).code).toBe(2);
    expect((await fermix("skills", "view")).code).toBe(2);
    expect((await fermix("skills", "list", "--bogus")).code).toBe(2);
  });

  test("reload with no daemon says there was nothing to reload and shows what loads now", async () => {
    const { fermix, write } = setup();
    write("broken/SKILL.md", "oops");
    const result = await fermix("skills", "reload");
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("No daemon is running, so nothing needed reloading");
    expect(result.stdout).toContain("self-knowledge  bundled");
    expect(result.stdout).toContain("error: ");
  });

  test("reload asks a running daemon and prints its diff; a daemon without the route is told apart", async () => {
    const { fermix, home } = setup();
    mkdirSync(home, { recursive: true, mode: 0o700 });
    let answer: { status: number; body: unknown } = {
      status: 200,
      body: {
        total: 3,
        added: ["standup"],
        removed: [],
        changed: ["self-knowledge"],
        errors: [{ file: "/x/skills/bad/SKILL.md", reason: "description: missing" }],
      },
    };
    const requests: string[] = [];
    const server = Bun.serve({
      unix: join(home, "daemon.sock"),
      fetch(req) {
        requests.push(`${req.method} ${new URL(req.url).pathname}`);
        return Response.json(answer.body, { status: answer.status });
      },
    });
    defer(() => server.stop(true));
    const result = await fermix("skills", "reload");
    expect(requests).toEqual(["POST /v1/skills/reload"]);
    expect(result.stdout).toBe(
      [
        "Skills reloaded: 3 loaded.",
        "added: standup",
        "removed: none",
        "changed: self-knowledge",
        "errors (1, skipped):",
        "- /x/skills/bad/SKILL.md: description: missing",
        "",
      ].join("\n"),
    );
    answer = { status: 404, body: { error: { code: "not_found", message: "no route", data: {} } } };
    expect((await fermix("skills", "reload")).stdout).toStartWith(
      "The running daemon does not support reloading skills",
    );
  });
});
