import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";
import type { SetupUi, StatusKind } from "../../src/setup/prompt.ts";
import { createTerminalUi } from "../../src/setup/terminal-ui.ts";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { scriptedTerminal, setupWorld } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-setup-ui-0123456789abcdef";

/** The terminal's widgets, answering from a script and recording what setup showed through them. */
function fakeUi(answers: { provider: string; effort?: string; service: boolean }) {
  const calls: string[] = [];
  const ui: SetupUi = {
    async choose(question, options, initial) {
      calls.push(`choose ${question} [${initial}] ${options.map((o) => o.value).join(",")}`);
      return question === "Reasoning effort" ? (answers.effort ?? "") : answers.provider;
    },
    async confirm(question, initial) {
      calls.push(`confirm ${question} [${initial}]`);
      return answers.service;
    },
    async status(kind: StatusKind, text: string) {
      calls.push(`${kind} ${text}`);
    },
  };
  return { ui, calls };
}

describe("fermix setup with the terminal's widgets", () => {
  test("the provider is chosen and the service confirmed through them; the key is still read without echo", async () => {
    const w = setupWorld(defer);
    const api = await startFakeModelApi({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
    defer(() => api.close());
    w.env.OPENAI_BASE_URL = api.baseUrl;
    const t = scriptedTerminal([
      ["Model [gpt-5.5]: ", ""],
      ["OpenAI API key (from https://platform.openai.com/api-keys): ", KEY],
      ["Your assistant's name [fermix]: ", ""],
      ["Your name (optional): ", "Ada"],
      ["Your time zone [America/New_York]: ", "UTC"],
      ["How should your assistant talk to you?", ""],
    ]);
    const { ui, calls } = fakeUi({ provider: "openai", effort: "medium", service: true });
    await w.run({}, { ...t.io, ui });

    expect(calls).toEqual([
      "choose Provider [openai] openai_codex,openai,anthropic,xai,openrouter,mistral,ollama",
      // The effort picker lists only what gpt-5.5 accepts, the provider's default first.
      "choose Reasoning effort [] ,none,low,medium,high,xhigh",
      "info Testing OpenAI (gpt-5.5)…",
      `ok gpt-5.5 at ${api.baseUrl}: key accepted, model available`,
      "confirm Install the background service so fermix runs at login? [true]",
      expect.stringMatching(/^ok config: updated /),
      expect.stringMatching(/^ok API key: stored in the file store/),
      expect.stringMatching(/^ok prompt files: wrote 5 starting files/),
      expect.stringMatching(/^ok service: installed the systemd user service/),
    ]);
    // What went around the widgets: the questions they do not ask, and the closing lines.
    expect(t.output()).not.toContain("Providers:");
    expect(t.output()).not.toContain("[Y/n]");
    expect(t.output()).toEndWith('\n\nNext:\n  fermix ask "hello"\n  fermix status\n');
    expect(t.raw).toEqual([true, false]);
    expect([t.output(), ...calls].join("\n")).not.toContain(KEY);
    expect(readFileSync(w.paths.config, "utf8")).toContain('timezone = "UTC"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('reasoning_effort = "medium"');
  });

  test("status lines: consola's icon before the text, the text untouched", async () => {
    const written: string[] = [];
    const ui = createTerminalUi(async (text) => {
      written.push(text);
    });
    await ui.status("ok", "config: updated `config.toml` for OPENAI_API_KEY _x_ here");
    await ui.status("warn", "slow\n  fix: wait");
    await ui.status("fail", "service: not installed (see below)");
    await ui.status("info", "Testing OpenAI (gpt-5.5)…");
    // Colour follows consola's own look at stdout (none when piped); the words never change.
    expect(written.map((l) => stripVTControlCharacters(l))).toEqual([
      "✔ config: updated `config.toml` for OPENAI_API_KEY _x_ here\n",
      "⚠ slow\n  fix: wait\n",
      "✖ service: not installed (see below)\n",
      "ℹ Testing OpenAI (gpt-5.5)…\n",
    ]);
  });
});
