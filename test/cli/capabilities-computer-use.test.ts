import { describe, expect, test } from "bun:test";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/** `fermix capabilities` lists computer_use with its state on this machine: the words `fermix doctor` uses. */
async function computerUseRow(toml: string | undefined, env: Record<string, string> = {}) {
  await using h = tempHome();
  if (toml !== undefined) h.writeConfig(toml);
  const run = { env: { FERMIX_HOME: h.home, HOME: h.userHome, ...env } };
  const json = await runFermix(["capabilities", "--json", "--kind", "builtin"], run);
  expect(json.code).toBe(0);
  const rows = JSON.parse(json.stdout).result.capabilities as Array<Record<string, unknown>>;
  const text = await runFermix(["capabilities"], run);
  expect(text.code).toBe(0);
  return { rows: rows.filter((r) => r.name === "computer_use"), text: text.stdout };
}

describe("fermix capabilities: computer_use", () => {
  test("off by default: listed once, state off", async () => {
    const { rows, text } = await computerUseRow(undefined);
    expect(rows).toEqual([expect.objectContaining({ name: "computer_use", kind: "builtin", state: "off" })]);
    expect(text).toMatch(/^- computer_use \[builtin\] .* — off$/m);
  });

  test("enabled with no DISPLAY: not ready, and why", async () => {
    const { rows, text } = await computerUseRow("[fermix_core.computer_use]\nenabled = true\n");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.state).toStartWith("not ready: ");
    expect(rows[0]!.state).toContain("DISPLAY");
    expect(text).toMatch(/^- computer_use \[builtin\] .* — not ready: .*DISPLAY/m);
  });
});
