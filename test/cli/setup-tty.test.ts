import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager } from "../service/service-fixture.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-setup-tty-0123456789abcdef";

/**
 * The compiled binary on a real pseudo-terminal (util-linux `script`), answers typed only once their question
 * shows: the terminal itself would echo a key typed any earlier, before setup switched echo off.
 */
describe("fermix setup on a terminal (compiled binary)", () => {
  test("asks, keeps the typed key off the screen, and installs the service", async () => {
    if (!Bun.which("script")) return console.warn("skipped: util-linux script is not installed");
    const h = tempHome();
    const fake = fakeManager();
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.remove());
    h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
    const proc = Bun.spawn(["script", "-qec", `${await fermixBinary()} setup --skip-test`, "/dev/null"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, PATH: fake.path, ...fake.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    defer(() => proc.kill());
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let screen = "";
    let seen = 0;
    const answer = async (question: string, text: string) => {
      while (!screen.includes(question, seen)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the wizard ended before asking "${question}":\n${screen}`);
        screen += value;
      }
      seen = screen.indexOf(question, seen) + question.length;
      proc.stdin.write(`${text}\r`);
      await proc.stdin.flush();
    };
    await answer("Provider [openai]: ", "anthropic");
    await answer("Model [claude-sonnet-4-6]: ", "");
    await answer("Anthropic API key (from https://console.anthropic.com/settings/keys): ", KEY);
    await answer("Your assistant's name [fermix]: ", "Jarvis");
    await answer("Your name (optional): ", "Ada");
    await answer("Your time zone [America/New_York]: ", "Europe/Paris");
    await answer("[Y/n]: ", "");
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      screen += value;
    }
    expect(await proc.exited).toBe(0);
    expect(screen).not.toContain(KEY);
    expect(screen).toContain("Your assistant's name [fermix]: Jarvis"); // ordinary answers do echo
    expect(screen).toContain("service: installed the systemd user service");
    expect(readFileSync(join(h.home, "secrets", "ANTHROPIC_API_KEY"), "utf8")).toBe(KEY);
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain('timezone = "Europe/Paris"');
    expect(fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);
  });
});
