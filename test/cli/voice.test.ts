import { describe, expect, test } from "bun:test";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/* `fermix voice status` through the compiled binary: config.toml's [fermix_core.realtime], no daemon. */

const defer = cleanupAfterEach();
const KEY = "sk-test-voice-status-0123456789";

function home(config: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(config);
  return { FERMIX_HOME: h.home, HOME: h.userHome } as Record<string, string>;
}

describe("fermix voice status", () => {
  test("off by default: the facts' lines, the key not asked for", async () => {
    const r = await runFermix(["voice", "status"], { env: home('[fermix_core.personalization]\ntimezone = "UTC"\n') });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe(
      [
        "fermix voice: off",
        "daemon: offline",
        "enabled: false",
        "provider: openai",
        "model: gpt-realtime",
        "realtime key: n/a (disabled)",
        "socket: none (this build has no voice companion bridge)",
        "companion connected: no",
        "",
      ].join("\n"),
    );
  });

  test("--json: enabled in config, the house envelope with daemon and realtime, the key's presence only", async () => {
    const env = home(
      '[fermix_core.realtime]\nenabled = true\nscreen_share = false\nprovider = "openai"\nmodel = "gpt-realtime-mini"\n',
    );
    const r = await runFermix(["voice", "status", "--json"], { env: { ...env, OPENAI_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(KEY);
    expect(JSON.parse(r.stdout)).toEqual({
      schema_version: 1,
      ok: true,
      result: {
        daemon: "offline",
        realtime: {
          status: "enabled in config, but this build has no voice companion bridge",
          enabled: true,
          provider: "openai",
          model: "gpt-realtime-mini",
          screen_share: false,
          socket: null,
          companion_connected: false,
          "openai_api_key_present?": true,
        },
      },
    });
    const text = await runFermix(["voice"], { env });
    expect(text.stdout).toContain("fermix voice: enabled in config, but this build has no voice companion bridge\n");
    expect(text.stdout).toContain(
      "realtime key: MISSING — Realtime needs an OpenAI sk- key (Codex OAuth won't authorize it)\n",
    );
  });

  test("a stray argument is a usage error on stderr, exit 2", async () => {
    const r = await runFermix(["voice", "status", "now"], { env: home("") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unexpected argument "now"');
  });
});
