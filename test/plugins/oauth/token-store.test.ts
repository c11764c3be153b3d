import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AuthFileInvalid, createTokenStore, type StoredToken } from "../../../src/plugins/oauth/token-store.ts";
import { tempHome } from "../../fixture/home.ts";

const token = (over: Partial<StoredToken> = {}): StoredToken => ({
  provider: "github",
  access_token: "at-1",
  scopes: ["repo"],
  obtained_at: "2026-01-01T00:00:00.000Z",
  ...over,
});

describe("token store", () => {
  test("put, get and remove round-trip through a 0600 auth.json, leaving no temp or lock file", async () => {
    await using home = tempHome();
    const file = join(home.home, "auth.json");
    const store = createTokenStore(file);
    expect(store.get("github")).toBeUndefined();
    await store.put("github", token({ refresh_token: "rt-1", account: "octo" }));
    expect(store.get("github")).toEqual(token({ refresh_token: "rt-1", account: "octo" }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(home.home)).toEqual(["auth.json"]);
    expect(await store.remove("github")).toBe(true);
    expect(await store.remove("github")).toBe(false);
    expect(store.get("github")).toBeUndefined();
  });

  test("a rewrite narrows an auth.json someone widened back to 0600", async () => {
    await using home = tempHome();
    const file = join(home.home, "auth.json");
    const store = createTokenStore(file);
    await store.put("github", token());
    writeFileSync(file, readFileSync(file), { mode: 0o644 });
    await store.put("notion", token({ provider: "notion" }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("sections other than plugins are kept", async () => {
    await using home = tempHome();
    const file = join(home.home, "auth.json");
    mkdirSync(home.home, { recursive: true });
    writeFileSync(file, JSON.stringify({ providers: { anthropic: { kept: true } } }), { mode: 0o600 });
    await createTokenStore(file).put("github", token());
    expect(JSON.parse(readFileSync(file, "utf8")).providers).toEqual({ anthropic: { kept: true } });
  });

  test("concurrent writers from separate stores lose nothing", async () => {
    await using home = tempHome();
    const file = join(home.home, "auth.json");
    const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
    await Promise.all(names.map((n) => createTokenStore(file).put(n, token({ access_token: n }))));
    const store = createTokenStore(file);
    for (const n of names) expect(store.get(n)?.access_token).toBe(n);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("state: valid, invalidated when marked, and invalidated when long expired with nothing to refresh it", async () => {
    await using home = tempHome();
    const store = createTokenStore(join(home.home, "auth.json"));
    const expires = "2026-01-01T00:00:00.000Z";
    await store.put("a", token({ expires_at: expires }));
    await store.put("b", token({ expires_at: expires, refresh_token: "rt" }));
    await store.put("c", token());
    const soon = new Date("2026-01-05T00:00:00.000Z");
    const later = new Date("2026-01-09T00:00:00.000Z");
    expect(store.state("none", later)).toBeUndefined();
    expect(store.state("a", soon)).toBe("valid");
    expect(store.state("a", later)).toBe("invalidated");
    expect(store.state("b", later)).toBe("valid");
    expect(store.state("c", later)).toBe("valid");
    await store.markInvalidated("c");
    expect(store.state("c", soon)).toBe("invalidated");
    await store.markInvalidated("none");
    expect(store.get("none")).toBeUndefined();
  });

  test("a malformed auth.json is named with the way out, not silently replaced", async () => {
    await using home = tempHome();
    const file = join(home.home, "auth.json");
    mkdirSync(home.home, { recursive: true });
    writeFileSync(file, "{ not json", { mode: 0o600 });
    const store = createTokenStore(file);
    expect(() => store.get("github")).toThrow(/auth\.json is not valid JSON; move it aside/);
    await expect(store.put("github", token())).rejects.toMatchObject({ code: AuthFileInvalid.code });
    writeFileSync(file, JSON.stringify({ plugins: { github: { provider: 1 } } }));
    expect(() => store.get("github")).toThrow(/plugins\.github\.provider is malformed/);
  });
});
