import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
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
    await answer("Reasoning effort, one of low, medium, high, xhigh, max (Enter: the provider's default): ", "high");
    await answer("Anthropic API key (from https://console.anthropic.com/settings/keys): ", KEY);
    await answer("Your assistant's name [fermix]: ", "Jarvis");
    await answer("Your name (optional): ", "Ada");
    await answer("Your time zone [America/New_York]: ", "Europe/Paris");
    await answer('How should your assistant talk to you? (optional, e.g. "brief and direct"): ', "brief and warm");
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
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain('reasoning_effort = "high"');
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain('communication_style = "brief and warm"');
    expect(fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);
  });

  test("on a terminal with a width: consola's choice, confirmation and coloured status lines; the key still unechoed", async () => {
    if (!Bun.which("script")) return console.warn("skipped: util-linux script is not installed");
    const h = tempHome();
    const fake = fakeManager();
    defer(() => h[Symbol.asyncDispose]());
    defer(() => fake.remove());
    h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
    // A bare pty reports 0 columns, where setup asks plainly (above); this one has a size, as a terminal does.
    const command = `stty cols 100 rows 40; ${await fermixBinary()} setup --skip-test`;
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome, PATH: fake.path, TERM: "xterm-256color", ...fake.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    defer(() => proc.kill());
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let screen = "";
    let seen = 0;
    // The prompt redraws itself with cursor moves: what it shows is read with the escape codes stripped.
    const shown = () => stripVTControlCharacters(screen);
    const waitFor = async (...texts: string[]) => {
      for (;;) {
        const at = shown().indexOf(texts[0]!, seen);
        if (at >= 0 && texts.every((t) => shown().includes(t, at))) {
          seen = at + texts[0]!.length;
          return;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error(`the wizard ended before showing ${JSON.stringify(texts)}:\n${shown()}`);
        screen += value;
      }
    };
    const type = async (text: string) => {
      proc.stdin.write(text);
      await proc.stdin.flush();
    };
    await waitFor("Provider", "● openai");
    await type("\u001b[B"); // down: the next provider
    await waitFor("● anthropic");
    await type("\r");
    await waitFor("Model [claude-sonnet-4-6]: ");
    await type("\r");
    await waitFor("Reasoning effort", "● the provider's default", "○ max");
    await type("\u001b[B\u001b[B"); // down twice: low, then medium
    await waitFor("● medium");
    await type("\r");
    await waitFor("Anthropic API key (from https://console.anthropic.com/settings/keys): ");
    await type(`${KEY}\r`);
    await waitFor("Your assistant's name [fermix]: ");
    await type("Jarvis\r");
    await waitFor("Your name (optional): ");
    await type("Ada\r");
    await waitFor("Your time zone [America/New_York]: ");
    await type("Europe/Paris\r");
    await waitFor("How should your assistant talk to you?");
    await type("\r");
    await waitFor("Install the background service so fermix runs at login?", "● Yes");
    await type("\r");
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      screen += value;
    }
    expect(await proc.exited).toBe(0);
    expect(screen).not.toContain(KEY);
    expect(shown()).not.toContain("Providers:"); // the numbered menu is for terminals without a width
    expect(shown()).toContain("ℹ Not testing Anthropic (--skip-test).");
    expect(shown()).toContain("✔ service: installed the systemd user service");
    expect(screen).toContain("\u001b[32m✔\u001b[39m config: updated "); // green on a terminal
    expect(readFileSync(join(h.home, "secrets", "ANTHROPIC_API_KEY"), "utf8")).toBe(KEY);
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(config).toContain("[fermix_core.providers.anthropic]");
    expect(config).toContain('timezone = "Europe/Paris"');
    expect(config).toContain('reasoning_effort = "medium"');
    expect(config).not.toContain("communication_style");
    expect(fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);
  });
});
