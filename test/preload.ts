/**
 * Runs before any test module: no test may see the developer's real home, keychain, XDG dirs or
 * provider keys. Each test that needs a FERMIX_HOME makes its own (test/fixture/home.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sandboxHome = mkdtempSync(join(tmpdir(), "fermix-test-home-"));
process.env.HOME = sandboxHome;
process.env.USERPROFILE = sandboxHome;
for (const xdg of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"]) {
  process.env[xdg] = join(sandboxHome, xdg.toLowerCase());
}
for (const name of Object.keys(process.env)) {
  if (
    name !== "FERMIX_TEST_BINARY" &&
    /^(FERMIX_|OPENAI_|ANTHROPIC_|XAI_|OPENROUTER_|MISTRAL_|OLLAMA_|GEMINI_|DBUS_SESSION_BUS_ADDRESS$)/.test(name)
  ) {
    delete process.env[name];
  }
}
