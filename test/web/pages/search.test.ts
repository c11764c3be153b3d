import { describe, expect, test } from "bun:test";
import { searchPage } from "../../../src/web/pages/search.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { cardsFixture, ctx, form } from "./_cards-fixture.ts";

const BRAVE = "BSAsearch0123456789abcdefghijklmnopqr";
const defer = cleanupAfterEach();
const CONFIG = ["# search settings below", "[fermix_core.tools.web_search]", 'backend = "duckduckgo" # free', ""].join(
  "\n",
);

describe("Search page", () => {
  test("render: backend picked, key as a word, never the key", async () => {
    const f = cardsFixture(
      ["[fermix_core.tools.web_search]", 'backend = "brave"', `api_key = "${BRAVE}"`, "max_results = 5", ""].join("\n"),
      defer,
    );
    const out = (await searchPage.render(f.deps, ctx())).html;
    expect(out).toContain('<option value="brave" selected>Brave</option>');
    expect(out).toContain('name="max_results" inputmode="numeric" value="5"');
    expect(out).toContain('data-key-state="api_key">set</span>');
    expect(out).not.toContain(BRAVE);
    const env = cardsFixture("", defer, { env: { BRAVE_API_KEY: BRAVE } });
    const envOut = (await searchPage.render(env.deps, ctx())).html;
    expect(envOut).toContain("(the daemon has BRAVE_API_KEY)");
    expect(envOut).not.toContain(BRAVE);
  });

  test("bad values name the field and leave config.toml byte for byte", async () => {
    const f = cardsFixture(CONFIG, defer);
    const cases: Array<[Record<string, string>, string]> = [
      [{ backend: "google" }, 'backend: "google" is not one of duckduckgo, brave, exa, tavily, firecrawl'],
      [{ backend: "duckduckgo", max_results: "50" }, 'max_results: "50" is not a whole number from 1 to 20'],
      [{ backend: "duckduckgo", max_results: "2.5" }, "max_results:"],
      [{ backend: "brave" }, "Brave API key: Brave needs an API key"],
      [{ backend: "tavily" }, "Tavily API key: Tavily needs an API key"],
    ];
    for (const [fields, error] of cases) {
      const r = await searchPage.submit!(form(fields), f.deps);
      expect(r.ok ? "" : r.error).toContain(error);
    }
    expect(f.read()).toBe(CONFIG);
    expect(f.stored.size).toBe(0);
  });

  test("brave with a key: config points at the keyring, comments kept; blank max_results removes the key", async () => {
    const f = cardsFixture(CONFIG, defer);
    const r = await searchPage.submit!(form({ backend: "brave", max_results: "7", api_key: BRAVE }), f.deps);
    expect(r).toEqual({
      ok: true,
      notice: "web search: brave saved; the Brave key is stored in the OS keyring; applies from the next turn",
    });
    expect(f.read()).toBe(
      [
        "# search settings below",
        "[fermix_core.tools.web_search]",
        'backend = "brave" # free',
        "max_results = 7",
        'api_key = "@keyring"',
        "",
      ].join("\n"),
    );
    expect(f.stored.get("BRAVE_API_KEY")).toBe(BRAVE);
    expect(await searchPage.submit!(form({ backend: "brave", max_results: "" }), f.deps)).toMatchObject({ ok: true });
    expect(f.read()).not.toContain("max_results");
    expect(f.read()).toContain('api_key = "@keyring"');
  });

  test("exa, tavily, firecrawl: each key in its own slot; switching vendors never keeps the other's key", async () => {
    const EXA = "exa0123456789abcdefghijklmnopqrstuvw";
    const f = cardsFixture(CONFIG, defer, { env: { FIRECRAWL_API_KEY: "fc-from-env-0123456789" } });
    const page = (await searchPage.render(f.deps, ctx())).html;
    for (const b of ["Exa", "Tavily", "Firecrawl"]) expect(page).toContain(`>${b}</option>`);
    expect(page).toContain("(the daemon has FIRECRAWL_API_KEY)");
    expect(page).not.toContain("fc-from-env");

    const saved = await searchPage.submit!(form({ backend: "exa", api_key: EXA }), f.deps);
    expect(saved).toEqual({
      ok: true,
      notice: "web search: exa saved; the Exa key is stored in the OS keyring; applies from the next turn",
    });
    expect(f.stored.get("EXA_API_KEY")).toBe(EXA);
    expect(f.read()).toContain('backend = "exa" # free\napi_key = "@keyring"');
    expect((await searchPage.render(f.deps, ctx())).html).toContain('data-key-state="api_key">set</span>');

    // Tavily has no key of its own anywhere: the Exa key does not count for it.
    const before = f.read();
    const refused = await searchPage.submit!(form({ backend: "tavily" }), f.deps);
    expect(refused).toEqual({ ok: false, error: "Tavily API key: Tavily needs an API key; paste one" });
    expect(f.read()).toBe(before);

    // Firecrawl's variable is in the daemon's environment: the Exa api_key is dropped so that one is read.
    expect(await searchPage.submit!(form({ backend: "firecrawl" }), f.deps)).toMatchObject({ ok: true });
    expect(f.read()).toContain('backend = "firecrawl"');
    expect(f.read()).not.toContain("api_key");
    const after = (await searchPage.render(f.deps, ctx())).html;
    expect(after).toContain("from FIRECRAWL_API_KEY in the daemon&#39;s environment");
    expect(after).not.toContain(EXA);
  });
});
