import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecretStore, type RunCommand } from "../../src/config/secret-store.ts";
import { FermixError } from "../../src/error.ts";
import { planService } from "../../src/service/target.ts";
import { type FakeModelApi, type ModelApiOptions, startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { BINARY, pipedIo, scriptedTerminal, setupWorld, snapshot } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-setup-0123456789abcdef";
const WRONG = "sk-wrong-setup-fedcba9876543210";

async function fakeApi(opts: Partial<ModelApiOptions> = {}): Promise<FakeModelApi> {
  const api = await startFakeModelApi({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5", "gpt-5.4"], ...opts });
  defer(() => api.close());
  return api;
}

/** The compact non-interactive run: OpenAI at the fake, the key from $MY_KEY. */
async function world(opts: { key?: string } = {}) {
  const w = setupWorld(defer);
  const api = await fakeApi();
  w.env.OPENAI_BASE_URL = api.baseUrl;
  w.env.MY_KEY = opts.key ?? KEY;
  return { ...w, api };
}

const FLAGS = { provider: "openai", apiKeyEnv: "MY_KEY", userName: "Ada", nonInteractive: true };

function expectNoKey(text: string) {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(`${KEY.slice(0, 3)}***${KEY.slice(-4)}`);
}

async function failure(promise: Promise<unknown>): Promise<FermixError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FermixError) return err;
    throw err;
  }
  throw new Error("expected setup to fail");
}

describe("fermix setup, non-interactive", () => {
  test("tests the provider once, stores the key 0600 outside config.toml, writes config, installs the service", async () => {
    const w = await world();
    const out = pipedIo();
    await w.run(FLAGS, out.io);

    expect(w.api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    const config = readFileSync(w.paths.config, "utf8");
    expect(config).toBe(
      [
        "# fermix configuration, written by `fermix setup`. Edit freely: setup keeps comments and other keys.",
        "",
        "[fermix_core.providers.openai]",
        "primary = true",
        'default_model = "gpt-5.5"',
        'api_key = "@keyring"',
        "",
        "[fermix_core.agent]",
        'name = "fermix"',
        "",
        "[fermix_core.personalization]",
        'user_name = "Ada"',
        'timezone = "America/New_York"',
        "",
      ].join("\n"),
    );
    const secret = join(w.paths.secrets, "OPENAI_API_KEY");
    expect(readFileSync(secret, "utf8")).toBe(KEY);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(statSync(w.paths.secrets).mode & 0o777).toBe(0o700);
    expect(statSync(w.paths.config).mode & 0o777).toBe(0o600);
    expect(readFileSync(w.paths.promptFiles.identity, "utf8")).toContain("**Name:** fermix");

    expect(existsSync(w.unit)).toBe(true);
    expect(readFileSync(w.unit, "utf8")).toContain(`ExecStart=${BINARY} run\n`);
    expect(w.fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);

    expect(out.output()).toBe(
      [
        "Testing OpenAI (gpt-5.5)…",
        `ok: gpt-5.5 at ${w.api.baseUrl}: key accepted, model available`,
        "",
        `config: updated ${w.paths.config} (primary provider openai, model gpt-5.5, assistant "fermix", time zone America/New_York)`,
        `API key: stored in the file store, ${secret} (0600), since no OS keyring took it; config.toml points at it with api_key = "@keyring"`,
        `prompt files: wrote 5 starting files (IDENTITY.md, USER.md, …) in ${w.h.home}`,
        `service: installed the systemd user service at ${w.unit}; enabled and started`,
        "",
        "Next:",
        '  fermix ask "hello"',
        "  fermix status",
        "",
      ].join("\n"),
    );
    // The key is only in the secret file: not in config, output, the unit, the prompt files.
    expectNoKey(out.output());
    for (const [path, content] of Object.entries(snapshot(w.h.userHome))) {
      if (path !== secret) expectNoKey(content);
    }
  });

  test("re-running with the same answers changes nothing and says so; --yes alone keeps the stored key", async () => {
    const w = await world();
    await w.run(FLAGS, pipedIo().io);
    const before = snapshot(w.h.home);
    const unit = readFileSync(w.unit, "utf8");

    const again = pipedIo();
    await w.run(FLAGS, again.io);
    expect(snapshot(w.h.home)).toEqual(before);
    expect(again.output()).toContain(`config: ${w.paths.config} already holds these answers; unchanged\n`);
    expect(again.output()).toContain(`service: the systemd user service at ${w.unit} is up to date and enabled\n`);
    expect(again.output()).not.toContain("prompt files:");

    const bare = pipedIo();
    await w.run({ nonInteractive: true }, bare.io);
    expect(snapshot(w.h.home)).toEqual(before);
    expect(readFileSync(w.unit, "utf8")).toBe(unit);
    expect(bare.output()).toContain("API key: kept the one config.toml already gives OpenAI\n");
    expect(bare.output()).toContain("already holds these answers; unchanged");
    // The kept key was resolved from the store for the test, and sent: three probes, all with it.
    expect(w.api.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ]);
    expect(w.fake.calls()).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable --now fermix.service",
      "systemctl --user enable --now fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
  });

  test("a key the provider rejects stops setup with the probe's fix, and FERMIX_HOME is left exactly as it was", async () => {
    const w = await world({ key: WRONG });
    w.h.writeConfig('# mine\n[sandbox]\nmode = "strict"\n');
    const before = snapshot(w.h.userHome);
    const out = pipedIo();
    const err = await failure(w.run(FLAGS, out.io));
    expect(err.code).toBe("setup_probe_failed");
    expect(err.message).toBe(
      [
        `OpenAI failed the test: gpt-5.5 at ${w.api.baseUrl}: the key was rejected (HTTP 401)`,
        "  fix: put a valid key in OPENAI_API_KEY or api_key under [fermix_core.providers.openai], or run fermix setup (keys: https://platform.openai.com/api-keys)",
        "nothing was written; run fermix setup again once it is fixed (--skip-test saves the answers untested)",
      ].join("\n"),
    );
    expect(snapshot(w.h.userHome)).toEqual(before);
    expect(existsSync(w.paths.secrets)).toBe(false);
    expect(w.fake.calls()).toEqual([]);
    expect(`${out.output()}${err.message}`).not.toContain(WRONG);
    expect(`${out.output()}${err.message}`).not.toContain(`${WRONG.slice(0, 3)}***${WRONG.slice(-4)}`);
  });

  test("--skip-test saves the answers untested", async () => {
    const w = await world({ key: WRONG });
    const out = pipedIo();
    await w.run({ ...FLAGS, skipTest: true, service: false }, out.io);
    expect(w.api.requests).toEqual([]);
    expect(out.output()).toStartWith("Not testing OpenAI (--skip-test).\n");
    expect(readFileSync(join(w.paths.secrets, "OPENAI_API_KEY"), "utf8")).toBe(WRONG);
  });

  test("bad or missing answers are usage errors naming the flag, before any test or write", async () => {
    const w = await world();
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { ...FLAGS, timezone: "Mars/Base" },
        'setup: --timezone: "Mars/Base" is not an IANA time zone (such as America/New_York, Europe/Paris or UTC)',
      ],
      [
        { ...FLAGS, provider: "gemini" },
        'setup: --provider: unknown provider "gemini" (known: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama)',
      ],
      [
        { nonInteractive: true },
        "setup: choose a provider with --provider (one of: openai_codex, openai, anthropic, xai, openrouter, mistral, ollama)",
      ],
      [{ ...FLAGS, baseUrl: "ftp://x" }, 'setup: --base-url: "ftp://x" is not a URL starting with http:// or https://'],
      [{ ...FLAGS, name: " " }, "setup: --name: the name is empty"],
      [
        { ...FLAGS, effort: "extreme" },
        'setup: --effort: "extreme" is not a reasoning effort (one of none, low, medium, high, xhigh, max)',
      ],
      [{ ...FLAGS, effort: "max" }, 'setup: --effort: gpt-5.5 accepts none, low, medium, high, xhigh (not "max")'],
      [
        { provider: "ollama", effort: "low", nonInteractive: true },
        "setup: --effort: Ollama has no reasoning-effort setting",
      ],
      [{ ...FLAGS, communicationStyle: " " }, "setup: --communication-style: the communication style is empty"],
      [{ ...FLAGS, apiKeyEnv: "NOT_SET" }, "setup: --api-key-env: NOT_SET is not set (or empty)"],
      [{ ...FLAGS, apiKeyStdin: true }, "setup: choose one of --api-key-stdin and --api-key-env"],
      [
        { provider: "ollama", apiKeyStdin: true },
        "setup: Ollama needs no API key; leave out --api-key-stdin / --api-key-env",
      ],
      [
        { provider: "openai", nonInteractive: true },
        'setup: OpenAI needs an API key: pipe it with --api-key-stdin (echo "$KEY" | fermix setup --api-key-stdin …) or name a variable that holds it with --api-key-env VAR',
      ],
    ];
    for (const [flags, message] of cases) {
      const err = await failure(w.run(flags, pipedIo().io));
      expect({ code: err.code, message: err.message }).toEqual({ code: "usage", message });
    }
    w.env.OPENAI_API_KEY = KEY;
    const hinted = await failure(w.run({ provider: "openai" }, pipedIo().io));
    expect(hinted.message).toEndWith("(OPENAI_API_KEY is set here: --api-key-env OPENAI_API_KEY stores it)");
    expect(hinted.message).not.toContain(KEY);
    expect(w.api.requests).toEqual([]);
    expect(existsSync(w.h.home)).toBe(false);
  });

  test("a key piped on stdin is stored; a pasted newline is dropped", async () => {
    const w = await world();
    await w.run({ provider: "openai", apiKeyStdin: true, service: false }, pipedIo(`${KEY}\n`).io);
    expect(readFileSync(join(w.paths.secrets, "OPENAI_API_KEY"), "utf8")).toBe(KEY);
  });

  test("with an OS keyring the key goes there (on stdin) and no file is left", async () => {
    const w = await world();
    const calls: Array<{ argv: string[]; stdin?: string }> = [];
    const keyring: RunCommand = (argv, stdin) => {
      calls.push({ argv, stdin });
      return { ok: true, stdout: "", stderr: "" };
    };
    const out = pipedIo();
    const store = createSecretStore({ secretsDir: w.paths.secrets, platform: "linux", run: keyring });
    await w.run({ ...FLAGS, service: false }, out.io, { store });
    expect(calls).toEqual([
      {
        argv: [
          "secret-tool",
          "store",
          "--label",
          "Fermix",
          "service",
          "fermix",
          "account",
          "fermix",
          "env",
          "OPENAI_API_KEY",
        ],
        stdin: KEY,
      },
    ]);
    expect(existsSync(join(w.paths.secrets, "OPENAI_API_KEY"))).toBe(false);
    expect(out.output()).toContain(
      'API key: stored in the OS keyring (OPENAI_API_KEY); config.toml points at it with api_key = "@keyring"\n',
    );
  });

  test("Ollama needs no key: its server URL is tested and written", async () => {
    const w = setupWorld(defer);
    const api = await fakeApi({
      flavor: "ollama",
      ollama: [{ name: "qwen3:8b", contextLength: 131_072, numCtx: 131_072 }],
    });
    const out = pipedIo();
    await w.run(
      { provider: "ollama", baseUrl: api.baseUrl, model: "qwen3:8b", nonInteractive: true, service: false },
      out.io,
    );
    expect(readFileSync(w.paths.config, "utf8")).toContain(
      `[fermix_core.providers.ollama]\nprimary = true\ndefault_model = "qwen3:8b"\nbase_url = "${api.baseUrl}"\n`,
    );
    expect(out.output()).toContain(`API key: none needed for Ollama (${api.baseUrl})\n`);
    expect(existsSync(w.paths.secrets)).toBe(false);
  });

  test("switching provider keeps the old one as a fallback and the owner's comments", async () => {
    const w = await world();
    w.h.writeConfig(
      '# my setup\n[fermix_core.providers.anthropic]\nprimary = true  # main\napi_key = "$ANTHROPIC_API_KEY"\n',
    );
    await w.run({ ...FLAGS, service: false }, pipedIo().io);
    const text = readFileSync(w.paths.config, "utf8");
    expect(text).toStartWith(
      '# my setup\n[fermix_core.providers.anthropic]\nprimary = false  # main\napi_key = "$ANTHROPIC_API_KEY"\n',
    );
    expect(text).toContain("[fermix_core.providers.openai]\nprimary = true\n");
  });
});

describe("fermix setup, the service", () => {
  test("a drifted unit is rewritten through the manager, reloaded and restarted", async () => {
    const w = await world();
    await w.run(FLAGS, pipedIo().io);
    writeFileSync(w.unit, readFileSync(w.unit, "utf8").replace("Restart=on-failure", "Restart=always"));
    const out = pipedIo();
    await w.run(FLAGS, out.io);
    expect(out.output()).toContain(
      `service: rewrote the systemd user service at ${w.unit}, which had drifted from what this binary writes:\n  - Restart=always\n  + Restart=on-failure\n  reloaded and restarted it\n`,
    );
    expect(w.fake.calls().slice(2)).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user restart fermix.service",
      "systemctl --user enable --now fermix.service",
    ]);
    expect(readFileSync(w.unit, "utf8")).toBe(
      planService({ scope: "user", env: w.env, binary: BINARY, platform: "linux" }).content,
    );
  });

  test("a config change with an up-to-date unit restarts the daemon so it reads it", async () => {
    const w = await world();
    await w.run(FLAGS, pipedIo().io);
    const out = pipedIo();
    await w.run({ ...FLAGS, timezone: "Europe/Paris" }, out.io);
    expect(out.output()).toContain(
      `service: the systemd user service at ${w.unit} is up to date; restarted it so the daemon reads the new config\n`,
    );
    expect(w.fake.calls().slice(2)).toEqual([
      "systemctl --user enable --now fermix.service",
      "systemctl --user restart fermix.service",
    ]);

    // A new key alone leaves config.toml as it is, but the daemon resolved the old one at start.
    w.env.MY_KEY = "sk-test-setup-another-key-0123456789";
    const rekeyed = pipedIo();
    await w.run({ ...FLAGS, timezone: "Europe/Paris", skipTest: true }, rekeyed.io);
    expect(rekeyed.output()).toContain("already holds these answers; unchanged");
    expect(rekeyed.output()).toContain("restarted it so the daemon reads the new config\n");
    expect(readFileSync(join(w.paths.secrets, "OPENAI_API_KEY"), "utf8")).toBe(w.env.MY_KEY);
  });

  test("--no-service leaves the manager alone", async () => {
    const w = await world();
    const out = pipedIo();
    await w.run({ ...FLAGS, service: false }, out.io);
    expect(w.fake.calls()).toEqual([]);
    expect(existsSync(w.unit)).toBe(false);
    expect(out.output()).toContain(
      "service: skipped (--no-service); fermix ask works without it, fermix start runs the daemon in the background\n",
    );
  });

  test("from source the service step is skipped with the reason", async () => {
    const w = await world();
    const out = pipedIo();
    const fromSource = () => {
      throw new FermixError("from_source", "a service must run a built fermix binary");
    };
    await w.run(FLAGS, out.io, { service: { binary: fromSource, platform: "linux" } });
    expect(w.fake.calls()).toEqual([]);
    expect(out.output()).toContain(
      "service: skipped: running from source (bun src/main.ts), and a service must run a built binary; build one (bun run build) and run its setup, or start the daemon with fermix start\n",
    );
  });

  test("a manager that refuses: config and key are saved, the summary printed, and the error says what next", async () => {
    const w = await world();
    w.fake.failOn("enable", 1, "Failed to connect to bus: No medium found\n");
    const out = pipedIo();
    const err = await failure(w.run(FLAGS, out.io));
    expect(err.code).toBe("service_command_failed");
    expect(err.message).toBe(
      "`systemctl --user enable --now fermix.service` failed (exit 1): Failed to connect to bus: No medium found; there is no systemd user session here (log in through a session, or use --system)\nconfig.toml and the key are saved; once this is fixed, run fermix setup again (or fermix service install)",
    );
    expect(out.output()).toContain("service: not installed (see below)\n");
    expect(readFileSync(join(w.paths.secrets, "OPENAI_API_KEY"), "utf8")).toBe(KEY);
  });

  test("--system without root is refused before anything happens", async () => {
    const w = await world();
    const err = await failure(w.run({ ...FLAGS, system: true }, pipedIo().io, { uid: 1000 }));
    expect(err.code).toBe("needs_root");
    expect(w.api.requests).toEqual([]);
    expect(existsSync(w.h.home)).toBe(false);
  });
});

describe("fermix setup, interactive", () => {
  test("asks each question in turn, re-asks a bad answer, and reads the key with echo off", async () => {
    const w = await world();
    const t = scriptedTerminal([
      ["Provider [openai]: ", "2"],
      ["Model [gpt-5.5]: ", ""],
      // Only the levels gpt-5.5 accepts (its ceiling is xhigh): max is refused and asked again.
      ["Reasoning effort, one of none, low, medium, high, xhigh (Enter: the provider's default): ", "max"],
      ["Reasoning effort, one of none, low, medium, high, xhigh (Enter: the provider's default): ", "high"],
      ["OpenAI API key (from https://platform.openai.com/api-keys): ", KEY],
      ["Your assistant's name [fermix]: ", "Jarvis"],
      ["Your name (optional): ", "Ada"],
      ["Your time zone [America/New_York]: ", "Mars/Base"],
      ["Your time zone [America/New_York]: ", "europe/paris"],
      ['How should your assistant talk to you? (optional, e.g. "brief and direct"): ', "brief, no small talk"],
      ["Install the background service so fermix runs at login? [Y/n]: ", ""],
    ]);
    await w.run({}, t.io);
    const output = t.output();
    // Nothing typed is echoed by the wizard: the problem follows the question directly.
    expect(output).toContain(
      'Your time zone [America/New_York]:   "Mars/Base" is not an IANA time zone (such as America/New_York, Europe/Paris or UTC)\nYour time zone [America/New_York]: ',
    );
    expect(output).toContain(
      "OpenAI API key (from https://platform.openai.com/api-keys): \nTesting OpenAI (gpt-5.5)…\nok: ",
    );
    expectNoKey(output);
    expect(t.raw).toEqual([true, false]);
    expect(readFileSync(w.paths.config, "utf8")).toContain('name = "Jarvis"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('timezone = "Europe/Paris"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('reasoning_effort = "high"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('communication_style = "brief, no small talk"');
    expect(output).toContain("  gpt-5.5 accepts none, low, medium, high, xhigh\n");
    expect(readFileSync(w.paths.promptFiles.identity, "utf8")).toContain("**Name:** Jarvis");
    expect(w.fake.calls()).toEqual(["systemctl --user daemon-reload", "systemctl --user enable --now fermix.service"]);

    // Again: Enter keeps every value, the stored key included, and the service can be declined.
    const again = scriptedTerminal([
      ["Provider [openai]: ", ""],
      ["Model [gpt-5.5]: ", ""],
      ["Reasoning effort, one of none, low, medium, high, xhigh [high]: ", ""],
      ["OpenAI API key (Enter keeps the configured one): ", ""],
      ["Your assistant's name [Jarvis]: ", ""],
      ["Your name [Ada]: ", ""],
      ["Your time zone [Europe/Paris]: ", ""],
      ["How should your assistant talk to you? [brief, no small talk]: ", ""],
      ["[Y/n]: ", "n"],
    ]);
    await w.run({}, again.io);
    expect(again.output()).toContain("already holds these answers; unchanged");
    expect(again.output()).toContain("service: skipped; install it later with fermix service install\n");
  });

  test("flags answer their questions; --non-interactive asks nothing even on a terminal", async () => {
    const w = await world();
    const t = scriptedTerminal([
      ["OpenAI API key", KEY],
      ["Your name (optional): ", ""],
    ]);
    await w.run(
      {
        provider: "openai",
        model: "gpt-5.4",
        effort: "low",
        name: "Jarvis",
        timezone: "UTC",
        communicationStyle: "terse",
        service: false,
      },
      t.io,
    );
    expect(t.output()).not.toContain("Provider [");
    expect(t.output()).not.toContain("Reasoning effort");
    expect(t.output()).not.toContain("talk to you");
    expect(readFileSync(w.paths.config, "utf8")).toContain('default_model = "gpt-5.4"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('reasoning_effort = "low"');
    expect(readFileSync(w.paths.config, "utf8")).toContain('communication_style = "terse"');

    const quiet = scriptedTerminal([]);
    await w.run({ nonInteractive: true, service: false }, quiet.io);
    expect(quiet.output()).not.toContain(": \n");
    expect(quiet.output()).toContain("already holds these answers; unchanged");
  });

  test("the input ending mid-way cancels with nothing written", async () => {
    const w = await world();
    const t = scriptedTerminal([["Provider [openai]: ", "openai"]]);
    const err = await failure(w.run({}, t.io));
    expect(err).toMatchObject({
      code: "cancelled",
      message: "setup was cancelled: the input ended before every question was answered; nothing was written",
    });
    expect(existsSync(w.h.home)).toBe(false);
  });
});
