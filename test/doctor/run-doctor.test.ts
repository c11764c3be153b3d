import { describe, expect, test } from "bun:test";
import { PLAIN } from "../../src/cli/paint.ts";
import { resolveSecret } from "../../src/config/secrets.ts";
import { defineCheck } from "../../src/doctor/check.ts";
import { renderReport } from "../../src/doctor/render.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { startFakeModelApi } from "../fake/model-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();
const KEY = "sk-test-doctor-run-0123456789abcdef";

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

describe("runDoctor", () => {
  test("every check on a healthy install: rows in order, ok, and the rendered text", async () => {
    const h = home();
    const api = await startFakeModelApi({ flavor: "openai", apiKey: KEY, models: ["gpt-5.5"] });
    defer(() => api.close());
    // A port of its own: whether 4030 is free on this machine (another daemon, another test) is not this test's to say.
    const webPort = await freePort();
    h.writeConfig(`[fermix_web]\nport = ${webPort}\n[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n`);
    const report = await runDoctor(doctorDeps(h, { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: api.baseUrl } }));
    expect(report.rows.map((r) => [r.id, r.status])).toEqual([
      ["config", "ok"],
      ["providers", "ok"],
      ["providers.openai", "ok"],
      ["daemon", "warn"],
      ["service", "ok"],
      ["keychain", "ok"],
      ["plugins", "ok"],
      ["voice", "ok"],
      ["computer-use", "ok"],
      ["cloud-rail", "ok"],
      ["web", "ok"],
      ["catalog", "ok"],
      ["templates", "ok"],
      ["trace-export", "ok"],
      ["budget", "ok"],
      ["disk", "ok"],
    ]);
    expect(report).toMatchObject({ ok: true, full: false, counts: { ok: 15, warn: 1, fail: 0 } });
    const text = renderReport(report, PLAIN)
      .replaceAll(api.baseUrl, "FAKE")
      .replace(`port ${webPort} `, "port WEB ")
      .replace(/\(\d+ plugins\)/, "(N plugins)");
    expect(text).toMatchInlineSnapshot(`
      "ok   config     ~/h/config.toml is valid
      ok   providers  primary openai; no fallbacks
      ok   providers  openai (primary): gpt-5.5 at FAKE: key accepted, model available
      warn daemon     not running (no socket at ~/h/daemon.sock)
           fix: fermix start
      ok   service    installed at ~/fermix.service, up to date
      ok   keychain   secrets are kept in the file store, ~/h/secrets (0700); no OS keyring: secret-tool is not installed
      ok   plugins    none enabled
      ok   voice      off
      ok   computer use off
      ok   cloud rail off
      ok   web        port WEB on 127.0.0.1 is free; the daemon serves the page there (loopback only) when it runs
      ok   catalog    the embedded plugin catalog's signature verifies (N plugins)
      ok   templates  no seed record (seeded before fermix kept one, or not yet)
      ok   trace export off (FERMIX_OPIK_ENABLED=1 or [fermix_core.observability] otlp_enabled = true turns it on)
      ok   budget     no budget set; $0.00 today, $0.00 this month
      ok   disk       10.0 GiB free for ~/h

      15 ok, 1 warning, 0 failures
      "
    `);
    expect(JSON.stringify(report)).not.toContain(KEY);
  });

  test("a check that throws becomes a failed row; the others still report", async () => {
    const boom = defineCheck({
      id: "boom",
      run: async () => {
        throw new Error("disk on fire");
      },
    });
    const fine = defineCheck({
      id: "fine",
      run: async () => [{ id: "fine", title: "fine", status: "ok", detail: "fine" }],
    });
    const report = await runDoctor(doctorDeps(home()), [boom, fine]);
    expect(report.ok).toBe(false);
    expect(report.rows).toEqual([
      { id: "boom", title: "boom", status: "fail", detail: "the check itself failed: disk on fire" },
      { id: "fine", title: "fine", status: "ok", detail: "fine" },
    ]);
  });

  test("a secret resolved on the way is redacted from every row, even if a check quoted it", async () => {
    const leaky = defineCheck({
      id: "leaky",
      run: async (ctx) => {
        // Resolving registers it (config/secret-registry.ts); the check need not say it met a secret.
        resolveSecret("$LEAKY_KEY", "LEAKY_KEY", {
          env: { LEAKY_KEY: "plain-secret-value-42" },
          secretsDir: ctx.paths.secrets,
        });
        return [
          {
            id: "leaky",
            title: "leaky",
            status: "warn",
            detail: "saw plain-secret-value-42",
            fix: "x plain-secret-value-42",
          },
        ];
      },
    });
    const report = await runDoctor(doctorDeps(home()), [leaky]);
    expect(report.rows[0]).toEqual({
      id: "leaky",
      title: "leaky",
      status: "warn",
      detail: "saw [REDACTED:secret]",
      fix: "x [REDACTED:secret]",
    });
  });

  test("the summary line counts warnings and failures", () => {
    const text = renderReport(
      {
        ok: false,
        full: false,
        version: "1",
        counts: { ok: 0, warn: 2, fail: 1 },
        rows: [
          { id: "a", title: "a", status: "fail", detail: "broken", fix: "mend it" },
          { id: "b", title: "b", status: "warn", detail: "odd", fix: "look" },
          { id: "c", title: "c", status: "warn", detail: "odd" },
        ],
      },
      PLAIN,
    );
    expect(text).toBe(
      "fail a          broken\n     fix: mend it\nwarn b          odd\n     fix: look\nwarn c          odd\n\n0 ok, 2 warnings, 1 failure\n",
    );
  });
});
