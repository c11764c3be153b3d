import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const HAND_WRITTEN = `# fermix config, edited by hand
[fermix_core.providers.openai]
api_key = "$OPENAI_API_KEY" # from my shell profile

# sandbox: keep my notes here
[sandbox]
mode = "standard" # the default, written out on purpose
`;

describe("fermix sandbox / grant / revoke (built binary)", () => {
  test("grant and revoke keep the hand-written comments intact", async () => {
    await using h = tempHome();
    const file = h.writeConfig(HAND_WRITTEN);
    const data = join(h.userHome, "data");
    mkdirSync(data);
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };

    const granted = await runFermix(["grant", "path", data], { env });
    expect(granted).toMatchObject({ code: 0, stderr: "" });
    expect(granted.stdout).toContain(`granted ${data}`);
    const afterGrant = readFileSync(file, "utf8");
    for (const line of HAND_WRITTEN.split("\n")) expect(afterGrant).toContain(line);
    expect(afterGrant).toContain(data);

    const status = await runFermix(["sandbox", "status"], { env });
    expect(status.stdout).toContain("sandbox: standard mode");
    expect(status.stdout).toContain(`granted roots: ${data}`);

    const revoked = await runFermix(["revoke", "path", data], { env });
    expect(revoked.code).toBe(0);
    const afterRevoke = readFileSync(file, "utf8");
    for (const line of HAND_WRITTEN.split("\n")) expect(afterRevoke).toContain(line);
    expect(afterRevoke).not.toContain(data);

    const again = await runFermix(["revoke", "path", data], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is not a granted root");
  });

  test("mode changes in place; the home directory itself and fermix's own are never granted", async () => {
    await using h = tempHome();
    const file = h.writeConfig(HAND_WRITTEN);
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const mode = await runFermix(["sandbox", "mode", "strict"], { env });
    expect(mode.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(HAND_WRITTEN.replace('mode = "standard"', 'mode = "strict"'));
    expect((await runFermix(["sandbox", "mode", "lax"], { env })).code).toBe(2);

    for (const refused of [h.userHome, h.home, "/etc"]) {
      const r = await runFermix(["grant", "path", refused], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toStartWith("fermix: ");
    }
    expect(readFileSync(file, "utf8")).toBe(HAND_WRITTEN.replace('mode = "standard"', 'mode = "strict"'));
  });

  test("explain says how a path is judged", async () => {
    await using h = tempHome();
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    const r = await runFermix(["sandbox", "explain", join(h.userHome, ".ssh", "id_rsa")], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.toLowerCase()).toContain("protected");
  });

  test("capabilities lists the built-ins", async () => {
    const r = await runFermix(["capabilities"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^capabilities: \d+ \(builtin \d+, skill [1-9]\d*, mcp 0, command 0\)\n/);
    expect(r.stdout).toContain("- self-knowledge [skill] ");
    expect(r.stdout).toContain("- shell [builtin] ");
    const json = JSON.parse((await runFermix(["capabilities", "--json", "--kind", "builtin"])).stdout);
    expect(json.result.capabilities.map((c: any) => c.name)).toContain("web_fetch");
  });
});
