import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";

const KEY = "sk-test-approval-0123456789abcdef";
const defer = cleanupAfterEach();

describe("directory approval through the binary", () => {
  test("denied → request_directory_access → /confirm TOKEN in the same session → granted in config.toml", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const project = join(h.userHome, "project");
    const data = join(h.userHome, "data");
    mkdirSync(project, { recursive: true });
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "numbers.csv"), "a,b\n1,2\n");
    h.writeConfig('# my own notes stay\n[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };

    fake.enqueue(
      {
        kind: "tool_calls",
        calls: [
          { name: "request_directory_access", arguments: { path: data, reason: "the CSV to summarise lives there" } },
        ],
      },
      { kind: "text", text: "I asked for access." },
    );
    const asked = await runFermix(["ask", "-s", "work", "summarise ~/data/numbers.csv"], { env, cwd: project });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe("I asked for access.\n");
    expect(asked.stderr).toContain(`fermix asks for access to ${data}`);
    expect(asked.stderr).toContain("Reason: the CSV to summarise lives there");
    expect(asked.stderr).toContain(`allowed_roots += ["${data}"]`);
    const token = /\/confirm ([A-Z0-9]+)/.exec(asked.stderr)?.[1];
    expect(token).toBeDefined();
    // The model never sees the token.
    expect(JSON.stringify(fake.requests[1]!.body)).not.toContain(token!);

    const elsewhere = await runFermix(["ask", "-s", "other", `/confirm ${token}`], { env });
    expect(elsewhere.stdout).toBe("Not confirmed: that token belongs to another conversation.\n");

    const confirmed = await runFermix(["ask", "-s", "work", `/confirm ${token}`], { env });
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toBe(
      `Granted access to ${data} (added to [sandbox] allowed_roots). Run your request again.\n`,
    );
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(config).toStartWith("# my own notes stay\n");
    expect(config).toContain(data);
    expect(fake.requests).toHaveLength(2);

    const again = await runFermix(["ask", "-s", "work", `/confirm ${token}`], { env });
    expect(again.stdout).toBe("Not confirmed: that token was already used.\n");

    fake.enqueue({
      kind: "tool_calls",
      calls: [{ name: "file_read", arguments: { path: join(data, "numbers.csv") } }],
    });
    echoToolOutputs(fake);
    const rerun = await runFermix(["ask", "-s", "work", "summarise ~/data/numbers.csv"], { env, cwd: project });
    expect(rerun.stdout).toContain("1,2");
  });

  test("paths the system would refuse are never offered", async () => {
    const h = tempHome();
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.close());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    mkdirSync(join(h.userHome, ".ssh"), { recursive: true });
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "request_directory_access", arguments: { path: h.userHome, reason: "everything" } },
        { name: "request_directory_access", arguments: { path: join(h.userHome, ".ssh"), reason: "keys" } },
        { name: "request_directory_access", arguments: { path: h.home, reason: "internals" } },
        { name: "request_directory_access", arguments: { path: "/etc", reason: "system" } },
      ],
    });
    echoToolOutputs(fake);
    const r = await runFermix(["ask", "give me everything"], { env });
    expect(r.stderr).not.toContain("/confirm");
    expect(r.stdout.match(/Not offered to the owner/g)).toHaveLength(4);
  });
});
