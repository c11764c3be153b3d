import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveSecret } from "../../src/config/secrets.ts";
import { tempHome } from "../fixture/home.ts";

const noKeyring = () => ({ ok: false, stdout: "" });

describe("secrets", () => {
  test("plaintext, $ENV and {source=env} resolve", () => {
    const deps = { env: { MY_KEY: "sk-from-env" }, secretsDir: "/nonexistent", run: noKeyring };
    expect(resolveSecret("sk-plain", "OPENAI_API_KEY", deps)).toBe("sk-plain");
    expect(resolveSecret("$MY_KEY", "OPENAI_API_KEY", deps)).toBe("sk-from-env");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${NAME} form is what users write
    expect(resolveSecret("${MY_KEY}", "OPENAI_API_KEY", deps)).toBe("sk-from-env");
    expect(resolveSecret({ source: "env", name: "MY_KEY" }, "OPENAI_API_KEY", deps)).toBe("sk-from-env");
  });

  test("a missing env var names the variable, never a value", () => {
    const deps = { env: {}, secretsDir: "/nonexistent", run: noKeyring };
    expect(() => resolveSecret("$NOPE", "OPENAI_API_KEY", deps)).toThrow(
      "OPENAI_API_KEY points at the environment variable NOPE, which is not set",
    );
  });

  test("@keyring reads the 0600 file store, and refuses a file others can read", async () => {
    await using h = tempHome();
    const dir = join(h.home, "secrets");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "OPENAI_API_KEY");
    writeFileSync(file, "sk-stored\n", { mode: 0o600 });
    const deps = { env: {}, secretsDir: dir, run: noKeyring };
    expect(resolveSecret("@keyring", "OPENAI_API_KEY", deps)).toBe("sk-stored");
    chmodSync(file, 0o644);
    expect(() => resolveSecret("@keyring", "OPENAI_API_KEY", deps)).toThrow("readable by other users; run chmod 600");
  });

  test("@keyring falls back to the OS keyring and explains what to do when both are empty", () => {
    const seen: string[][] = [];
    const deps = {
      env: {},
      secretsDir: "/nonexistent",
      platform: "linux" as const,
      run: (argv: string[]) => {
        seen.push(argv);
        return { ok: true, stdout: "sk-from-keyring\n" };
      },
    };
    expect(resolveSecret("@keyring", "ANTHROPIC_API_KEY", deps)).toBe("sk-from-keyring");
    expect(seen[0]).toEqual([
      "secret-tool",
      "lookup",
      "service",
      "fermix",
      "account",
      "fermix",
      "env",
      "ANTHROPIC_API_KEY",
    ]);
    expect(() => resolveSecret("@keyring", "ANTHROPIC_API_KEY", { ...deps, run: noKeyring })).toThrow(
      'ANTHROPIC_API_KEY is set to "@keyring" but no keyring entry',
    );
  });

  test("a command source uses its stdout", () => {
    const deps = { env: {}, secretsDir: "/x", run: (argv: string[]) => ({ ok: true, stdout: `${argv.join(" ")}\n` }) };
    expect(resolveSecret({ source: "command", command: ["pass", "show", "openai"] }, "OPENAI_API_KEY", deps)).toBe(
      "pass show openai",
    );
  });
});
