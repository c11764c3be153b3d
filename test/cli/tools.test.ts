import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-tools-0123456789abcdef";
const defer = cleanupAfterEach();

/** A temp project under the (temp) user home, so standard mode admits it as the caller's cwd. */
async function project() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  const dir = join(h.userHome, "project");
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "README.md"), "# Demo project\nIt parses things.\n");
  writeFileSync(join(dir, "src", "parser.ts"), "export const x = 1;\n// TODO: handle empty input\n");
  writeFileSync(join(dir, "src", "main.ts"), "import { x } from './parser';\n// TODO: wire the CLI\nconsole.log(x);\n");
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, dir, env };
}

describe("fermix ask with tools (built binary, fake provider that asks for tools)", () => {
  test("file_read, glob_search, content_search and shell run, and the reply carries their results", async () => {
    const { fake, dir, env } = await project();
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "file_read", arguments: { path: "README.md" } },
        { name: "glob_search", arguments: { pattern: "**/*.ts" } },
        { name: "content_search", arguments: { pattern: "TODO" } },
        { name: "shell", arguments: { command: "echo shell-says-hi && ls src" } },
      ],
    });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "find the TODOs in this repo and list them"], { env, cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("# Demo project");
    expect(r.stdout).toContain("src/main.ts\nsrc/parser.ts");
    expect(r.stdout).toContain("src/parser.ts:2: // TODO: handle empty input");
    expect(r.stdout).toContain("src/main.ts:2: // TODO: wire the CLI");
    expect(r.stdout).toContain("shell-says-hi");
    // The provider was offered the tools, and the catalog named them.
    const first = fake.requests[0]!.body;
    expect(first.tools.map((t: any) => t.name)).toContain("shell");
    expect(first.instructions).toContain("## Built-in Capability Catalog");
  });

  test("file_edit changes exactly the requested text", async () => {
    const { fake, dir, env } = await project();
    const before = readFileSync(join(dir, "src", "parser.ts"), "utf8");
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        {
          name: "file_edit",
          arguments: { path: "src/parser.ts", old_string: "export const x = 1;", new_string: "export const x = 2;" },
        },
      ],
    });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "set x to 2"], { env, cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "src", "parser.ts"), "utf8")).toBe(
      before.replace("export const x = 1;", "export const x = 2;"),
    );
    expect(r.stdout).toContain("-export const x = 1;\n+export const x = 2;");
  });

  test("a path outside the roots is denied and the model is told how to ask for it", async () => {
    const { fake, h, dir, env } = await project();
    const outside = join(h.userHome, "elsewhere");
    mkdirSync(outside);
    writeFileSync(join(outside, "private.txt"), "not for you");
    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "file_read", arguments: { path: join(outside, "private.txt") } }],
    });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "read it"], { env, cwd: join(dir, "src") });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("not for you");
    expect(r.stdout).toContain("Denied:");
  });
});
