import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../../src/config/load.ts";
import { codingPage } from "../../../src/web/pages/coding.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { cardsFixture, ctx, form } from "./_cards-fixture.ts";

const defer = cleanupAfterEach();
const CONFIG = ["# harness", "[fermix_core.harness]", "max_active = 3 # two was too few", ""].join("\n");
const find = (cmd: string) => (cmd === "codex" ? "/usr/local/bin/codex" : null);

describe("Coding agents page", () => {
  test("render: consent off, the CLIs found on PATH as a hint", async () => {
    const f = cardsFixture(CONFIG, defer, { find });
    const out = (await codingPage.render(f.deps, ctx())).html;
    expect(out).toContain('<input type="checkbox" name="approved"> Allow');
    expect(out).toContain("found at <code>/usr/local/bin/codex</code>");
    expect(out).toContain('<span class="warn">not found on PATH</span>');
    expect(out).toContain('<option value="" selected>any found</option>');
  });

  test("a bad vendor names the field and leaves config.toml byte for byte", async () => {
    const f = cardsFixture(CONFIG, defer, { find });
    const r = await codingPage.submit!(form({ approved: "on", default_vendor: "cursor" }), f.deps);
    expect(r).toEqual({ ok: false, error: 'default_vendor: "cursor" is not one of codex, claude' });
    expect(f.read()).toBe(CONFIG);
  });

  test("consent and vendor written in place, comments kept; unticking and 'any' write it back", async () => {
    const f = cardsFixture(CONFIG, defer, { find });
    const r = await codingPage.submit!(form({ approved: "on", default_vendor: "claude" }), f.deps);
    expect(r).toEqual({
      ok: true,
      notice: "coding agents: allowed, default claude; run fermix restart for the daemon to use it",
    });
    expect(f.read()).toBe(`${CONFIG}approved = true\ndefault_vendor = "claude"\n`);
    const out = (await codingPage.render(f.deps, ctx())).html;
    expect(out).toContain('name="approved" checked>');
    expect(await codingPage.submit!(form({ default_vendor: "" }), f.deps)).toMatchObject({ ok: true });
    expect(parseConfig(f.read(), "c").fermix_core?.harness).toEqual({ max_active: 3, approved: false });
  });

  test("the harness schema is strict", () => {
    expect(() => parseConfig("[fermix_core.harness]\napprovd = true\n", "c")).toThrow(/approvd/);
    expect(() => parseConfig('[fermix_core.harness]\ndefault_vendor = "cursor"\n', "c")).toThrow(/default_vendor/);
  });
});
