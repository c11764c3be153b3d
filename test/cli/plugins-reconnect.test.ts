import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createTokenStore } from "../../src/plugins/oauth/token-store.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();
const MAIN = join(import.meta.dir, "../../src/main.ts");

describe("fermix plugins list and doctor with a sign-in that is gone", () => {
  test("a refused OAuth token: list says reauthorization_required, doctor says Reconnect needed with the command", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    h.writeConfig(
      [
        "[fermix_core.plugins]",
        'enabled = ["gmail"]',
        "[fermix_core.oauth.google]",
        'client_id = "id-google"',
        'client_secret = "secret-google-not-shown"',
      ].join("\n"),
    );
    const tokens = createTokenStore(join(h.home, "auth.json"));
    await tokens.put("gmail", {
      provider: "google",
      access_token: "ya29.token-not-shown",
      scopes: [],
      obtained_at: new Date().toISOString(),
    });
    await tokens.markInvalidated("gmail");
    const seen: Record<string, string> = {};
    for (const verb of ["list", "doctor"]) {
      const { stdout: out, stderr: err } = await runCommand([process.execPath, MAIN, "plugins", verb], {
        env: { FERMIX_HOME: h.home, HOME: h.userHome, PATH: "/usr/bin:/bin" },
      });
      expect(out + err).not.toContain("ya29.token-not-shown");
      expect(out + err).not.toContain("secret-google-not-shown");
      seen[verb] = out + err;
    }
    expect(seen.list).toContain("gmail\t1.0.0\tbundled\tenabled\treauthorization_required\t—\n");
    expect(seen.doctor).toContain("Reconnect needed: fermix plugins auth reauthorize gmail");
  });
});
